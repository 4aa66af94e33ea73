/// How the values of a field compare in a predicate.
indirect enum PredicateValueKind: Hashable {
    /// Strings by UTF-8 bytes; also enums, by raw value.
    case string
    /// Integers and doubles, numerically.
    case number
    /// Booleans: equality only.
    case boolean
    /// ISO 8601 strings, by the instant they name.
    case temporal(TemporalKind)
    /// Lists of values of one kind.
    case list(of: PredicateValueKind)
    /// Embedded non-model values: structural equality only.
    case object
    /// Foreign keys: compared by the kind of value they hold.
    case foreignKey

    /// The ``Temporal`` type of an ISO 8601 field.
    enum TemporalKind: Hashable {
        case date
        case dateTime
        case time
    }

    /// The order of two values.
    enum Order: Hashable {
        case less
        case equal
        case greater

        var reversed: Order {
            switch self {
            case .less: return .greater
            case .equal: return .equal
            case .greater: return .less
            }
        }
    }

    init(_ type: ModelFieldType) {
        switch type {
        case .string, .enumeration: self = .string
        case .int, .double, .timestamp: self = .number
        case .bool: self = .boolean
        case .date: self = .temporal(.date)
        case .dateTime: self = .temporal(.dateTime)
        case .time: self = .temporal(.time)
        case .embedded, .model, .collection: self = .object
        case .embeddedCollection(let element): self = .list(of: PredicateValueKind(element))
        }
    }

    /// The names of the operators that apply to values of this kind, in a fixed order.
    var supportedOperators: [String] {
        switch self {
        case .string, .temporal, .foreignKey:
            return [
                "eq", "ne", "le", "lt", "ge", "gt", "between", "beginsWith", "contains", "notContains",
                "attributeExists",
            ]
        case .number: return ["eq", "ne", "le", "lt", "ge", "gt", "between", "attributeExists"]
        case .boolean, .object: return ["eq", "ne", "attributeExists"]
        case .list: return ["eq", "ne", "contains", "notContains", "attributeExists"]
        }
    }

    /// Whether `value` has the shape values of this kind take.
    func accepts(_ value: JSONValue) -> Bool {
        switch (self, value) {
        case (.string, .string), (.temporal, .string), (.number, .integer), (.number, .number),
            (.boolean, .boolean), (.object, .object), (.foreignKey, _):
            return true
        case (.list(let element), .array(let values)):
            return values.allSatisfy(element.accepts)
        default:
            return false
        }
    }

    /// The order of `lhs` and `rhs`, or `nil` when they do not compare: values of different
    /// kinds, `NaN`, or objects that differ.
    func compare(_ lhs: JSONValue, _ rhs: JSONValue) -> Order? {
        switch self {
        case .string:
            guard case .string(let left) = lhs, case .string(let right) = rhs else { return nil }
            return Self.compareUTF8(left, right)
        case .temporal(let temporal):
            guard case .string(let left) = lhs, case .string(let right) = rhs else { return nil }
            return Self.compareTemporal(temporal, left, right) ?? Self.compareUTF8(left, right)
        case .number:
            return Self.compareNumbers(lhs, rhs)
        case .boolean:
            guard case .boolean(let left) = lhs, case .boolean(let right) = rhs else { return nil }
            return left == right ? .equal : (left ? .greater : .less)
        case .list(let element):
            guard case .array(let left) = lhs, case .array(let right) = rhs else { return nil }
            for (leftElement, rightElement) in zip(left, right) {
                guard let order = element.compare(leftElement, rightElement) else { return nil }
                if order != .equal { return order }
            }
            return Self.order(left.count, right.count)
        case .object:
            return lhs == rhs ? .equal : nil
        case .foreignKey:
            switch (lhs, rhs) {
            case (.string(let left), .string(let right)): return Self.compareUTF8(left, right)
            case (.integer, _), (.number, _): return Self.compareNumbers(lhs, rhs)
            case (.boolean, .boolean): return PredicateValueKind.boolean.compare(lhs, rhs)
            default: return lhs == rhs ? .equal : nil
            }
        }
    }

    /// Whether `value` holds `needle`: a substring of a string, an element of a list.
    func contains(_ value: JSONValue, _ needle: JSONValue) -> Bool {
        switch (self, value, needle) {
        case (.list(let element), .array(let elements), _):
            return elements.contains { element.compare($0, needle) == .equal }
        case (.list, _, _):
            return false
        case (.foreignKey, .array(let elements), _):
            return elements.contains { PredicateValueKind.foreignKey.compare($0, needle) == .equal }
        case (_, .string(let string), .string(let substring)):
            return Array(string.utf8).firstRange(of: Array(substring.utf8)) != nil
        default:
            return false
        }
    }

    /// Whether the string `value` starts with `prefix`, byte for byte.
    func beginsWith(_ value: JSONValue, _ prefix: String) -> Bool {
        guard case .string(let string) = value else { return false }
        return string.utf8.starts(with: prefix.utf8)
    }

    /// Strings by their UTF-8 bytes: SQLite's `BINARY` collation and DynamoDB's order.
    static func compareUTF8(_ lhs: String, _ rhs: String) -> Order {
        if lhs.utf8.elementsEqual(rhs.utf8) { return .equal }
        return lhs.utf8.lexicographicallyPrecedes(rhs.utf8) ? .less : .greater
    }

    /// Two numbers, an integer exactly against a double.
    static func compareNumbers(_ lhs: JSONValue, _ rhs: JSONValue) -> Order? {
        switch (lhs, rhs) {
        case (.integer(let left), .integer(let right)):
            return order(left, right)
        case (.number(let left), .number(let right)):
            guard !left.isNaN, !right.isNaN else { return nil }
            return order(left, right)
        case (.integer(let left), .number(let right)):
            return compare(left, right)
        case (.number(let left), .integer(let right)):
            return compare(right, left)?.reversed
        default:
            return nil
        }
    }

    /// An integer against a double without rounding the integer.
    private static func compare(_ integer: Int, _ double: Double) -> Order? {
        guard !double.isNaN else { return nil }
        if double >= 0x1p63 { return .less }
        if double < -0x1p63 { return .greater }
        let whole = double.rounded(.down)
        let order = order(integer, Int(whole))
        guard order == .equal else { return order }
        return double > whole ? .less : .equal
    }

    static func order<T: Comparable>(_ lhs: T, _ rhs: T) -> Order {
        lhs < rhs ? .less : (lhs == rhs ? .equal : .greater)
    }
}
