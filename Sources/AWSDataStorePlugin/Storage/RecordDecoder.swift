import Amplify
import Foundation
import GRDB

/// Decodes a model straight from its row, without writing and parsing JSON.
///
/// A model's `init(from:)` reads its fields from a keyed container: here each key reads its
/// column. Scalars decode from the column's value; an embedded value or a list decodes from the
/// column's JSON text with `json`, a decoder that carries the same `userInfo`. Relations have no
/// column, so their keys are absent and lists and references load lazily through the loader in
/// `userInfo`.
struct RecordDecoder: Decoder {
    let table: ModelTable
    let json: JSONDecoder
    let userInfo: [CodingUserInfoKey: Any]
    /// The row's values, in column order.
    private let values: [DatabaseValue]

    /// A decoder of the record in `row`, whose columns start at `offset`.
    init(row: [DatabaseValue], offset: Int, table: ModelTable, json: JSONDecoder) {
        self.table = table
        self.json = json
        self.userInfo = json.userInfo
        self.values = Array(row[offset..<(offset + table.columns.count)])
    }

    var codingPath: [any CodingKey] { [] }

    /// The record's identifier, for messages.
    var identifier: String {
        ModelTable.identifier(of: table.primaryKey.map { values[table.columnIndex[$0]!] })
    }

    /// The value of the column named `name`; `nil` when there is no such column or it is null.
    func value(_ name: String) -> (ModelColumn, DatabaseValue)? {
        guard let index = table.columnIndex[name] else { return nil }
        let value = values[index]
        return value.isNull ? nil : (table.columns[index], value)
    }

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        KeyedDecodingContainer(RecordContainer<Key>(decoder: self))
    }

    func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
        throw DecodingError.typeMismatch(
            [Any].self,
            .init(codingPath: [], debugDescription: "A stored \(table.name) is a record, not a list.")
        )
    }

    func singleValueContainer() throws -> any SingleValueDecodingContainer {
        throw DecodingError.typeMismatch(
            Any.self,
            .init(codingPath: [], debugDescription: "A stored \(table.name) is a record, not a single value.")
        )
    }
}

private struct RecordContainer<Key: CodingKey>: KeyedDecodingContainerProtocol {
    let decoder: RecordDecoder

    var codingPath: [any CodingKey] { [] }

    var allKeys: [Key] {
        decoder.table.columns.compactMap { column in
            decoder.value(column.name) == nil ? nil : Key(stringValue: column.name)
        }
    }

    func contains(_ key: Key) -> Bool {
        decoder.value(key.stringValue) != nil
    }

    func decodeNil(forKey key: Key) throws -> Bool {
        decoder.value(key.stringValue) == nil
    }

    private func stored(_ key: Key) throws -> (ModelColumn, DatabaseValue) {
        guard let stored = decoder.value(key.stringValue) else {
            throw DecodingError.keyNotFound(
                key,
                .init(
                    codingPath: [key],
                    debugDescription: "The stored \(decoder.table.name) has no \(key.stringValue)."
                )
            )
        }
        return stored
    }

    func decode(_ type: String.Type, forKey key: Key) throws -> String {
        try ScalarDecoder(value: stored(key).1, codingPath: [key], userInfo: decoder.userInfo).decode(type)
    }

    func decode(_ type: Int.Type, forKey key: Key) throws -> Int {
        try ScalarDecoder(value: stored(key).1, codingPath: [key], userInfo: decoder.userInfo).decode(type)
    }

    func decode(_ type: Double.Type, forKey key: Key) throws -> Double {
        try ScalarDecoder(value: stored(key).1, codingPath: [key], userInfo: decoder.userInfo).decode(type)
    }

    func decode(_ type: Bool.Type, forKey key: Key) throws -> Bool {
        try ScalarDecoder(value: stored(key).1, codingPath: [key], userInfo: decoder.userInfo).decode(type)
    }

    func decodeIfPresent(_ type: String.Type, forKey key: Key) throws -> String? {
        guard let (_, value) = decoder.value(key.stringValue) else { return nil }
        return try ScalarDecoder(value: value, codingPath: [key], userInfo: decoder.userInfo).decode(type)
    }

    func decodeIfPresent(_ type: Int.Type, forKey key: Key) throws -> Int? {
        guard let (_, value) = decoder.value(key.stringValue) else { return nil }
        return try ScalarDecoder(value: value, codingPath: [key], userInfo: decoder.userInfo).decode(type)
    }

    func decodeIfPresent(_ type: Double.Type, forKey key: Key) throws -> Double? {
        guard let (_, value) = decoder.value(key.stringValue) else { return nil }
        return try ScalarDecoder(value: value, codingPath: [key], userInfo: decoder.userInfo).decode(type)
    }

    func decodeIfPresent(_ type: Bool.Type, forKey key: Key) throws -> Bool? {
        guard let (_, value) = decoder.value(key.stringValue) else { return nil }
        return try ScalarDecoder(value: value, codingPath: [key], userInfo: decoder.userInfo).decode(type)
    }

    func decodeIfPresent<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T? {
        guard let stored = decoder.value(key.stringValue) else { return nil }
        return try decode(type, stored, key)
    }

    func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T {
        try decode(type, stored(key), key)
    }

    private func decode<T: Decodable>(_ type: T.Type, _ stored: (ModelColumn, DatabaseValue), _ key: Key) throws -> T {
        let (column, value) = stored
        if type == JSONValue.self {
            do {
                return try ModelTable.jsonValue(value, kind: column.kind) as! T
            } catch {
                throw decoder.table.unreadable(error, column: column, identifier: decoder.identifier)
            }
        }
        if column.kind.isJSON, case .string(let text) = value.storage {
            return try decoder.json.decode(T.self, from: Data(text.utf8))
        }
        return try T(from: ScalarDecoder(value: value, codingPath: [key], userInfo: decoder.userInfo))
    }

    func nestedContainer<NestedKey: CodingKey>(
        keyedBy type: NestedKey.Type,
        forKey key: Key
    ) throws
        -> KeyedDecodingContainer<NestedKey>
    {
        try ScalarDecoder(value: stored(key).1, codingPath: [key], userInfo: decoder.userInfo).container(keyedBy: type)
    }

    func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
        try ScalarDecoder(value: stored(key).1, codingPath: [key], userInfo: decoder.userInfo).unkeyedContainer()
    }

    func superDecoder() throws -> any Decoder {
        decoder
    }

    func superDecoder(forKey key: Key) throws -> any Decoder {
        decoder
    }
}

/// Decodes one column's value: a string, a number, a boolean, or a type that decodes from one
/// (an enum, a ``Temporal`` value).
private struct ScalarDecoder: Decoder, SingleValueDecodingContainer {
    let value: DatabaseValue
    let codingPath: [any CodingKey]
    let userInfo: [CodingUserInfoKey: Any]

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        throw mismatch([String: Any].self)
    }

    func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
        throw mismatch([Any].self)
    }

    func singleValueContainer() throws -> any SingleValueDecodingContainer {
        self
    }

    private func mismatch(_ type: Any.Type) -> DecodingError {
        DecodingError.typeMismatch(
            type,
            .init(codingPath: codingPath, debugDescription: "The stored value is \(value), not a \(type).")
        )
    }

    func decodeNil() -> Bool {
        value.isNull
    }

    func decode(_ type: Bool.Type) throws -> Bool {
        guard case .int64(let int) = value.storage else { throw mismatch(type) }
        return int != 0
    }

    func decode(_ type: String.Type) throws -> String {
        guard case .string(let string) = value.storage else { throw mismatch(type) }
        return string
    }

    func decode(_ type: Double.Type) throws -> Double {
        switch value.storage {
        case .double(let double): return double
        case .int64(let int): return Double(int)
        default: throw mismatch(type)
        }
    }

    func decode(_ type: Float.Type) throws -> Float {
        Float(try decode(Double.self))
    }

    func decode<T: BinaryInteger & Decodable>(integer type: T.Type) throws -> T {
        switch value.storage {
        case .int64(let int):
            guard let exact = T(exactly: int) else { throw mismatch(type) }
            return exact
        case .double(let double):
            guard let exact = T(exactly: double) else { throw mismatch(type) }
            return exact
        default:
            throw mismatch(type)
        }
    }

    func decode(_ type: Int.Type) throws -> Int { try decode(integer: type) }
    func decode(_ type: Int8.Type) throws -> Int8 { try decode(integer: type) }
    func decode(_ type: Int16.Type) throws -> Int16 { try decode(integer: type) }
    func decode(_ type: Int32.Type) throws -> Int32 { try decode(integer: type) }
    func decode(_ type: Int64.Type) throws -> Int64 { try decode(integer: type) }
    func decode(_ type: UInt.Type) throws -> UInt { try decode(integer: type) }
    func decode(_ type: UInt8.Type) throws -> UInt8 { try decode(integer: type) }
    func decode(_ type: UInt16.Type) throws -> UInt16 { try decode(integer: type) }
    func decode(_ type: UInt32.Type) throws -> UInt32 { try decode(integer: type) }
    func decode(_ type: UInt64.Type) throws -> UInt64 { try decode(integer: type) }

    func decode<T: Decodable>(_ type: T.Type) throws -> T {
        if type == JSONValue.self {
            switch value.storage {
            case .int64(let int): return JSONValue.integer(Int(int)) as! T
            case .double(let double): return JSONValue.number(double) as! T
            case .string(let string): return JSONValue.string(string) as! T
            case .null, .blob: return JSONValue.null as! T
            }
        }
        return try T(from: self)
    }
}
