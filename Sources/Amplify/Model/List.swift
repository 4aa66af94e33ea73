import Foundation

/// The children of a hasMany relation: a Swift `Collection` of models.
///
/// A list decoded from a response or built from an array is loaded. A list that only knows its
/// parent is loaded on first access through the ``ModelListProvider`` its owner installed.
/// ``nextToken`` gives direct access to the next page when the list came from a paginated query.
public final class List<Element: Model>: Collection, Codable, @unchecked Sendable {
    public typealias Index = Int

    private let lock = NSLock()
    private var loaded: [Element]?
    private let provider: (any ModelListProvider<Element>)?

    /// The token of the next page, when this list is one page of a paginated query.
    public let nextToken: String?

    /// A loaded list.
    public init(_ elements: [Element] = [], nextToken: String? = nil) {
        self.loaded = elements
        self.provider = nil
        self.nextToken = nextToken
    }

    /// A list loaded lazily by `provider` on first access.
    public init(provider: any ModelListProvider<Element>) {
        self.loaded = nil
        self.provider = provider
        self.nextToken = nil
    }

    /// `true` once the elements are in memory.
    public var isLoaded: Bool { lock.withLock { loaded != nil } }

    /// The elements, loading them first if needed.
    public var elements: [Element] {
        lock.withLock {
            if let loaded { return loaded }
            let fetched = (try? provider?.load()) ?? []
            loaded = fetched
            return fetched
        }
    }

    public var startIndex: Int { 0 }
    public var endIndex: Int { elements.count }
    public func index(after index: Int) -> Int { index + 1 }
    public subscript(position: Int) -> Element { elements[position] }

    /// `true` when a further page can be requested.
    public func hasNextPage() -> Bool { nextToken != nil }

    private enum CodingKeys: String, CodingKey {
        case items
        case nextToken
    }

    /// Decodes either a JSON array or a connection object `{items, nextToken}`.
    public required init(from decoder: any Decoder) throws {
        provider = nil
        if let container = try? decoder.container(keyedBy: CodingKeys.self),
            container.contains(.items)
        {
            loaded = try container.decode([Element].self, forKey: .items)
            nextToken = try container.decodeIfPresent(String.self, forKey: .nextToken)
        } else {
            loaded = try [Element](from: decoder)
            nextToken = nil
        }
    }

    /// Encodes the loaded elements as a JSON array; an unloaded list encodes nothing.
    public func encode(to encoder: any Encoder) throws {
        let elements = lock.withLock { loaded }
        if let elements {
            try elements.encode(to: encoder)
        } else {
            var container = encoder.singleValueContainer()
            try container.encodeNil()
        }
    }
}

extension List: Equatable where Element: Equatable {
    public static func == (lhs: List<Element>, rhs: List<Element>) -> Bool {
        lhs.elements == rhs.elements
    }
}

extension List: ExpressibleByArrayLiteral {
    public convenience init(arrayLiteral elements: Element...) {
        self.init(elements)
    }
}

/// Loads the elements of a lazy ``List``.
public protocol ModelListProvider<Element>: Sendable {
    associatedtype Element: Model
    /// Loads every element.
    ///
    /// - Throws: whatever the underlying store throws.
    func load() throws -> [Element]
}
