/// The size of an item as DynamoDB counts it against its 400 KB item limit, which the local
/// backend enforces on every write.
///
/// DynamoDB's rule, applied to the stored field values and the sync metadata (`_version`,
/// `_lastChangedAt`, `_deleted`): each attribute costs the UTF-8 bytes of its name plus its
/// value; a string its UTF-8 bytes; a number about one byte per two significant digits, plus
/// one; a Boolean or null one byte; a list or map 3 bytes, plus one byte and the size of each
/// element (and, in a map, the bytes of each key).
extension StoredItem {
    /// The largest item DynamoDB stores: 400 KB.
    static let maximumSize = 400 * 1024

    /// The item's size by DynamoDB's rule.
    var size: Int {
        var size = Self.size(of: values)
        if let version { size += "_version".utf8.count + Self.numberSize("\(version)") }
        if let lastChangedAt { size += "_lastChangedAt".utf8.count + Self.numberSize("\(lastChangedAt)") }
        if deleted != nil { size += "_deleted".utf8.count + 1 }
        return size
    }

    /// The size of the members of a map, without the map's own overhead.
    private static func size(of members: JSONObject) -> Int {
        var size = 0
        for (name, value) in members {
            size += name.utf8.count + Self.size(of: value)
        }
        return size
    }

    private static func size(of value: JSON) -> Int {
        switch value {
        case .null, .bool: return 1
        case .int(let number): return numberSize("\(number)")
        case .double(let number): return numberSize("\(number)")
        case .string(let text): return text.utf8.count
        case .array(let elements): return 3 + elements.reduce(0) { $0 + 1 + size(of: $1) }
        case .object(let members): return 3 + members.count + size(of: members)
        }
    }

    /// About one byte per two significant digits, plus one, as DynamoDB stores numbers (at most
    /// 38 significant digits: 21 bytes); `text` is the number as Swift prints it.
    private static func numberSize(_ text: String) -> Int {
        let mantissa = text.prefix { $0 != "e" && $0 != "E" }
        var digits = mantissa.filter(\.isNumber).drop { $0 == "0" }
        while digits.last == "0" { digits.removeLast() }
        return min(1 + (digits.count + 1) / 2, 21)
    }
}
