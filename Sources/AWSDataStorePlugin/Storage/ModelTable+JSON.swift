import Amplify
import Foundation
import GRDB

extension ModelTable {
    /// The record in `row` as a JSON object with sorted keys: what models decode from and what
    /// the outbox stores. The table's columns start at `offset`; null columns are left out.
    func jsonData(of row: Row, offset: Int = 0) -> Data {
        var writer = JSONTextWriter()
        writer.bytes.append(UInt8(ascii: "{"))
        var first = true
        for index in jsonOrder {
            let value: DatabaseValue = row[offset + index]
            if value.isNull { continue }
            if !first { writer.bytes.append(UInt8(ascii: ",")) }
            first = false
            let column = columns[index]
            writer.appendString(column.name)
            writer.bytes.append(UInt8(ascii: ":"))
            switch (column.kind, value.storage) {
            case (.boolean, .int64(let int)):
                writer.appendRaw(int != 0 ? "true" : "false")
            case (_, .int64(let int)):
                writer.appendRaw(String(int))
            case (_, .double(let double)):
                writer.appendRaw(double.isFinite ? String(double) : "null")
            case (.object, .string(let text)), (.list, .string(let text)):
                writer.appendRaw(text)
            case (_, .string(let text)):
                writer.appendString(text)
            case (_, .blob), (_, .null):
                writer.appendRaw("null")
            }
        }
        writer.bytes.append(UInt8(ascii: "}"))
        return Data(writer.bytes)
    }

    /// The record in `row` as a ``JSONValue`` object (null columns left out).
    func jsonValue(of row: Row, offset: Int = 0) -> JSONValue {
        var members: [String: JSONValue] = [:]
        for (index, column) in columns.enumerated() {
            let value: DatabaseValue = row[offset + index]
            if !value.isNull { members[column.name] = Self.jsonValue(value, kind: column.kind) }
        }
        return .object(members)
    }

    /// Decodes the model in `row` with `decoder`, whose `userInfo` carries the relation loader.
    ///
    /// - Throws: ``DataStoreError`` when the stored record does not decode as `M`.
    func decode<M: Model>(
        _ type: M.Type,
        from row: Row,
        offset: Int = 0,
        decoder: JSONDecoder
    ) throws(DataStoreError)
        -> M
    {
        let data = jsonData(of: row, offset: offset)
        do {
            return try decoder.decode(M.self, from: data)
        } catch {
            throw DataStoreError(
                .storage,
                "A stored \(name) does not decode as the \(name) model: \(error). The stored record is "
                    + "\(String(decoding: data, as: UTF8.self)). Regenerate the models with `stratus codegen models` "
                    + "and bump the registration's version so the store migrates."
            )
        }
    }
}

/// Writes JSON text into a byte buffer.
struct JSONTextWriter {
    var bytes: [UInt8] = []

    init() {
        bytes.reserveCapacity(256)
    }

    /// Appends text that already is JSON.
    mutating func appendRaw(_ text: String) {
        bytes.append(contentsOf: text.utf8)
    }

    /// Appends `text` as a JSON string, quoted and escaped.
    mutating func appendString(_ text: String) {
        bytes.append(UInt8(ascii: "\""))
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "\""): bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "\"")])
            case UInt8(ascii: "\\"): bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "\\")])
            case UInt8(ascii: "\n"): bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "n")])
            case UInt8(ascii: "\r"): bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "r")])
            case UInt8(ascii: "\t"): bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "t")])
            case 0..<0x20:
                let hex = Array("0123456789abcdef".utf8)
                bytes.append(contentsOf: Array("\\u00".utf8))
                bytes.append(hex[Int(byte >> 4)])
                bytes.append(hex[Int(byte & 0xF)])
            default: bytes.append(byte)
            }
        }
        bytes.append(UInt8(ascii: "\""))
    }
}
