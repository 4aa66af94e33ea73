import Foundation

/// The children of a hasMany relation: a Swift `Collection` of models.
///
/// A list decoded from a response or built from an array is loaded. A list that only knows its
/// parent is loaded through the ``ModelListProvider`` its owner installed: by ``fetch()``, which
/// reports a failure, or on first access as a collection.
///
/// ```swift
/// let post = try await Amplify.DataStore.query(Post.self, byId: "p1")
/// try await post?.comments?.fetch()
/// for comment in post?.comments ?? [] { print(comment.content) }
/// ```
///
/// Accessing the elements of a list that is not loaded loads them synchronously. When that load
/// fails, the failure is logged through the provider, the access sees no elements, and nothing is
/// cached: the next access or ``fetch()`` tries again. ``nextToken`` gives direct access to the
/// next page when the list came from a paginated query.
public final class List<Element: Model>: Collection, Codable, @unchecked Sendable {
    public typealias Index = Int
    public typealias Iterator = IndexingIterator<[Element]>

    /// Whether a list holds its elements.
    public enum LoadedState: Sendable {
        /// Not loaded yet: the children's fields that point at the parent, with the parent's
        /// values (`["postCommentsId": "p1"]`), as the provider knows them.
        case notLoaded(associatedValues: [String: JSONValue])
        /// The elements are in memory.
        case loaded([Element])
    }

    /// Guards `loaded`; never held while loading.
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

    /// A list loaded lazily by `provider`.
    public init(provider: any ModelListProvider<Element>) {
        self.loaded = nil
        self.provider = provider
        self.nextToken = nil
    }

    /// `true` once the elements are in memory.
    public var isLoaded: Bool { lock.withLock { loaded != nil } }

    /// The elements when they are in memory, or what the list would load them by.
    public var loadedState: LoadedState {
        if let elements = lock.withLock({ loaded }) { return .loaded(elements) }
        return .notLoaded(associatedValues: provider?.associatedValues ?? [:])
    }

    /// Loads the elements unless they are in memory already.
    ///
    /// Concurrent calls may each load; the first result stored is the one every later access
    /// sees. A failed load leaves the list not loaded, so a later call tries again.
    ///
    /// - Throws: what the provider throws (DataStore throws ``DataStoreError``).
    public func fetch() async throws {
        guard !isLoaded, let provider else { return }
        let fetched = try await provider.fetch()
        store(fetched)
    }

    /// The elements, loading them first if needed.
    ///
    /// A failed load is logged through the provider and reads as no elements, without being
    /// cached; call ``fetch()`` to receive the error.
    public var elements: [Element] {
        if let elements = lock.withLock({ loaded }) { return elements }
        guard let provider else { return [] }
        do {
            return store(try provider.load())
        } catch {
            provider.loadFailed(error)
            return []
        }
    }

    /// Stores `fetched` unless another load stored its result first, and returns what is stored.
    @discardableResult
    private func store(_ fetched: [Element]) -> [Element] {
        lock.withLock {
            if let loaded { return loaded }
            loaded = fetched
            return fetched
        }
    }

    public var startIndex: Int { 0 }
    public var endIndex: Int { elements.count }
    public func index(after index: Int) -> Int { index + 1 }
    public subscript(position: Int) -> Element { elements[position] }
    public var count: Int { elements.count }

    /// Iterates over the elements as they are when iteration starts: one load at most.
    public func makeIterator() -> IndexingIterator<[Element]> { elements.makeIterator() }

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

    /// The children's fields that point at the parent, with the parent's values; empty by
    /// default.
    var associatedValues: [String: JSONValue] { get }

    /// Loads every element, blocking the caller: what accessing a list as a collection calls.
    ///
    /// - Throws: whatever the underlying store throws.
    func load() throws -> [Element]

    /// Loads every element: what ``List/fetch()`` calls. By default, calls ``load()``.
    ///
    /// - Throws: whatever the underlying store throws.
    func fetch() async throws -> [Element]

    /// Reports a failed ``load()`` that no caller can receive: a list accessed as a collection.
    /// By default, writes the error to standard error.
    func loadFailed(_ error: any Error)
}

extension ModelListProvider {
    public var associatedValues: [String: JSONValue] { [:] }

    public func fetch() async throws -> [Element] {
        try load()
    }

    public func loadFailed(_ error: any Error) {
        RelationLog.standardError(
            "Loading a List<\(Element.modelName)> failed: \(error). It reads as empty until an access loads it; "
                + "call `try await list.fetch()` to receive the error."
        )
    }
}
