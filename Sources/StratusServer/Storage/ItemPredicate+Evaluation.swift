import Foundation

/// Evaluation of a predicate on an item in memory, as subscription filters need it, with the
/// semantics the SQL compiler gives it in the store: an absent field fails every comparison but
/// `eq: null`, `ne`, `notContains`, `notIn` and `attributeExists: false`.
extension ItemPredicate {
    /// Whether `item` satisfies the predicate.
    func evaluate(_ item: StoredItem) -> Bool {
        switch self {
        case .all(let predicates):
            return predicates.allSatisfy { $0.evaluate(item) }
        case .any(let predicates):
            return predicates.contains { $0.evaluate(item) }
        case .not(let predicate):
            return !predicate.evaluate(item)
        case .field(let name, let condition):
            return condition.evaluate(Self.value(of: name, in: item))
        }
    }

    /// The stored value of a field or of the sync metadata; `nil` when absent.
    private static func value(of name: String, in item: StoredItem) -> JSON? {
        let value: JSON?
        switch name {
        case TableLayout.versionColumn: value = item.version.map(JSON.int)
        case TableLayout.deletedColumn: value = item.deleted.map(JSON.bool)
        case TableLayout.lastChangedAtColumn: value = item.lastChangedAt.map(JSON.int)
        default: value = item.values[name]
        }
        guard let value, !value.isNull else { return nil }
        return value
    }
}

extension FieldCondition {
    /// Whether a stored value (`nil` when absent) satisfies the condition.
    func evaluate(_ value: JSON?) -> Bool {
        switch self {
        case .compare(.eq, .null):
            return value == nil
        case .compare(.ne, .null):
            return value != nil
        case .compare(.eq, let operand):
            return value.map { Self.order($0, operand) == .orderedSame } ?? false
        case .compare(.ne, let operand):
            return value.map { Self.order($0, operand) != .orderedSame } ?? true
        case .compare(let comparison, let operand):
            guard let value, let order = Self.order(value, operand) else { return false }
            switch comparison {
            case .lt: return order == .orderedAscending
            case .le: return order != .orderedDescending
            case .gt: return order == .orderedDescending
            case .ge: return order != .orderedAscending
            case .eq, .ne: return false
            }
        case .between(let low, let high):
            guard let value, let above = Self.order(value, low), let below = Self.order(value, high) else {
                return false
            }
            return above != .orderedAscending && below != .orderedDescending
        case .beginsWith(let prefix):
            guard let text = value?.stringValue else { return false }
            return text.utf8.starts(with: prefix.utf8)
        case .contains(let operand):
            return Self.contains(value, operand)
        case .notContains(let operand):
            return !Self.contains(value, operand)
        case .exists(let exists):
            return (value != nil) == exists
        case .attributeType(let type):
            return Self.attributeType(of: value) == type
        case .size(let comparison, let size):
            guard let count = Self.size(of: value) else { return false }
            return FieldCondition.compare(comparison, .int(size)).evaluate(.int(count))
        case .sizeBetween(let low, let high):
            guard let count = Self.size(of: value) else { return false }
            return low <= count && count <= high
        case .isIn(let operands):
            guard let value else { return false }
            return operands.contains { Self.order(value, $0) == .orderedSame }
        case .notIn(let operands):
            guard let value else { return true }
            return !operands.contains { Self.order(value, $0) == .orderedSame }
        }
    }

    /// How two values of one kind compare: numbers by value, strings by their UTF-8 bytes, as
    /// SQLite compares text; `nil` for values of different kinds.
    private static func order(_ lhs: JSON, _ rhs: JSON) -> ComparisonResult? {
        switch (lhs, rhs) {
        case (.string(let left), .string(let right)):
            if left.isExactly(right) { return .orderedSame }
            return left.utf8.lexicographicallyPrecedes(right.utf8) ? .orderedAscending : .orderedDescending
        case (.bool(let left), .bool(let right)):
            if left == right { return .orderedSame }
            return left ? .orderedDescending : .orderedAscending
        default:
            if let left = lhs.doubleValue, let right = rhs.doubleValue {
                if left == right { return .orderedSame }
                return left < right ? .orderedAscending : .orderedDescending
            }
            return lhs == rhs ? .orderedSame : nil
        }
    }

    private static func contains(_ value: JSON?, _ operand: JSON) -> Bool {
        switch value {
        case .string(let text)?:
            guard let needle = operand.stringValue else { return false }
            return needle.isEmpty || Self.bytes(of: text, contain: needle)
        case .array(let elements)?:
            return elements.contains { order($0, operand) == .orderedSame }
        default:
            return false
        }
    }

    /// Whether `needle`'s UTF-8 bytes occur in `text`'s, as SQLite's `instr` finds them.
    private static func bytes(of text: String, contain needle: String) -> Bool {
        let haystack = Array(text.utf8)
        let pattern = Array(needle.utf8)
        guard pattern.count <= haystack.count else { return false }
        return (0...(haystack.count - pattern.count)).contains { start in
            haystack[start..<(start + pattern.count)].elementsEqual(pattern)
        }
    }

    private static func attributeType(of value: JSON?) -> String {
        switch value {
        case nil, .null?: return "_null"
        case .string?: return "string"
        case .int?, .double?: return "number"
        case .bool?: return "bool"
        case .array?: return "list"
        case .object?: return "map"
        }
    }

    private static func size(of value: JSON?) -> Int? {
        switch value {
        case .string(let text)?: return text.utf8.count
        case .array(let elements)?: return elements.count
        case .object(let members)?: return members.count
        default: return nil
        }
    }
}
