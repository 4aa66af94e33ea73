/// A JSON value: what the server reads from requests, stores in items and writes in responses.
///
/// Objects keep the order of their keys, so a response body lists fields in the order of the
/// selection set, as AppSync does, and ``text`` is reproducible byte for byte:
///
/// ```swift
/// let body: JSON = ["data": ["getPost": ["id": "1", "title": "Hello"]]]
/// print(body.text)  // {"data":{"getPost":{"id":"1","title":"Hello"}}}
/// ```
public enum JSON: Sendable, Hashable {
    /// `null`.
    case null
    /// `true` or `false`.
    case bool(Bool)
    /// A number without fraction or exponent.
    case int(Int)
    /// Any other number.
    case double(Double)
    /// A string.
    case string(String)
    /// An array.
    case array([JSON])
    /// An object, its keys in order.
    case object(JSONObject)

    /// The string, for `.string`.
    public var stringValue: String? {
        if case .string(let value) = self { return value }
        return nil
    }

    /// The integer, for `.int` and for a `.double` without a fractional part.
    public var intValue: Int? {
        switch self {
        case .int(let value): return value
        case .double(let value) where value.rounded() == value && abs(value) < 9.2e18: return Int(value)
        default: return nil
        }
    }

    /// The number as a `Double`, for `.int` and `.double`.
    public var doubleValue: Double? {
        switch self {
        case .int(let value): return Double(value)
        case .double(let value): return value
        default: return nil
        }
    }

    /// The Boolean, for `.bool`.
    public var boolValue: Bool? {
        if case .bool(let value) = self { return value }
        return nil
    }

    /// The elements, for `.array`.
    public var arrayValue: [JSON]? {
        if case .array(let value) = self { return value }
        return nil
    }

    /// The members, for `.object`.
    public var objectValue: JSONObject? {
        if case .object(let value) = self { return value }
        return nil
    }

    /// `true` for `.null`.
    public var isNull: Bool {
        if case .null = self { return true }
        return false
    }

    /// The member named `key` of an object; `nil` for other values and absent keys.
    public subscript(key: String) -> JSON? {
        objectValue?[key]
    }

    /// The element at `index` of an array; `nil` for other values and indexes out of range.
    public subscript(index: Int) -> JSON? {
        guard let elements = arrayValue, elements.indices.contains(index) else { return nil }
        return elements[index]
    }
}

/// The members of a JSON object, in insertion order.
///
/// Two objects are equal when they hold the same members, whatever their order.
///
/// The members are kept in one array: the objects of items and responses have a few members, and
/// a scan of them costs less than hashing their names. An object past 16 members
/// (a response of many aliases, a large input) also keeps an index of names to positions.
public struct JSONObject: Sendable, Hashable, Sequence, ExpressibleByDictionaryLiteral {
    /// From this many members on, names are found through an index rather than by a scan.
    static let indexedCount = 16

    private var members: [(key: String, value: JSON)] = []
    private var index: [String: Int]? = nil

    /// An empty object.
    public init() {}

    /// An empty object with room for `minimumCapacity` members.
    public init(minimumCapacity: Int) {
        members.reserveCapacity(minimumCapacity)
    }

    /// An object with `members` in order; a repeated key keeps its first position and last value.
    public init(_ members: some Sequence<(String, JSON)>) {
        for (key, value) in members {
            self[key] = value
        }
    }

    /// An object with the literal's members in order.
    public init(dictionaryLiteral elements: (String, JSON)...) {
        self.init(elements)
    }

    /// The keys, in order.
    public var keys: [String] { members.map(\.key) }

    /// The number of members.
    public var count: Int { members.count }

    /// `true` without members.
    public var isEmpty: Bool { members.isEmpty }

    /// The position of `key` among the members.
    private func position(of key: String) -> Int? {
        if let index { return index[key] }
        return members.firstIndex { $0.key == key }
    }

    /// The value of `key`; setting `nil` removes the member, setting a new key appends it.
    public subscript(key: String) -> JSON? {
        get { position(of: key).map { members[$0].value } }
        set {
            if let newValue {
                if let position = position(of: key) {
                    members[position].value = newValue
                } else {
                    members.append((key, newValue))
                    if index != nil {
                        index![key] = members.count - 1
                    } else if members.count >= Self.indexedCount {
                        reindex()
                    }
                }
            } else if let position = position(of: key) {
                members.remove(at: position)
                if index != nil { reindex() }
            }
        }
    }

    private mutating func reindex() {
        var index: [String: Int] = [:]
        index.reserveCapacity(members.count)
        for (position, member) in members.enumerated() {
            index[member.key] = position
        }
        self.index = index
    }

    /// The members in order.
    public func makeIterator() -> IndexingIterator<[(key: String, value: JSON)]> {
        members.makeIterator()
    }

    /// `true` when both hold the same members, in any order.
    public static func == (lhs: JSONObject, rhs: JSONObject) -> Bool {
        guard lhs.count == rhs.count else { return false }
        return lhs.members.allSatisfy { rhs[$0.key] == $0.value }
    }

    /// Hashes the members, without their order.
    public func hash(into hasher: inout Hasher) {
        var members = 0
        for member in self.members {
            var one = Hasher()
            one.combine(member.key)
            one.combine(member.value)
            members ^= one.finalize()
        }
        hasher.combine(count)
        hasher.combine(members)
    }
}

extension JSON: ExpressibleByNilLiteral, ExpressibleByBooleanLiteral, ExpressibleByIntegerLiteral,
    ExpressibleByFloatLiteral, ExpressibleByStringLiteral, ExpressibleByArrayLiteral,
    ExpressibleByDictionaryLiteral
{
    /// `null`.
    public init(nilLiteral: ()) { self = .null }
    public init(booleanLiteral value: Bool) { self = .bool(value) }
    public init(integerLiteral value: Int) { self = .int(value) }
    public init(floatLiteral value: Double) { self = .double(value) }
    public init(stringLiteral value: String) { self = .string(value) }
    public init(arrayLiteral elements: JSON...) { self = .array(elements) }
    public init(dictionaryLiteral elements: (String, JSON)...) { self = .object(JSONObject(elements)) }
}

extension JSON {
    /// `true` when the value holds more than `limit` values, nested ones included; it stops
    /// counting there, so a huge value costs no more than a small one to check.
    func holdsMoreValues(than limit: Int) -> Bool {
        var remaining = limit
        func visit(_ value: JSON) -> Bool {
            remaining -= 1
            guard remaining >= 0 else { return true }
            switch value {
            case .array(let elements): return elements.contains(where: visit)
            case .object(let members): return members.contains { visit($0.value) }
            default: return false
            }
        }
        return visit(self)
    }
}
