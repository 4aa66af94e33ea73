import Amplify
import Foundation
import GRDB

extension ModelTable {
    /// The record in `row` as a JSON object with sorted keys: what models decode from and what
    /// the outbox stores. The table's columns start at `offset`; null columns are left out.
    func jsonData(of row: [DatabaseValue], offset: Int = 0) -> Data {
        var writer = JSONTextWriter()
        writer.bytes.append(UInt8(ascii: "{"))
        var first = true
        for index in jsonOrder {
            let value = row[offset + index]
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

    /// Decodes the model in `row` (see ``RecordDecoder``); `decoder` decodes the JSON of
    /// embedded values and lists, and its `userInfo` carries the relation loader.
    ///
    /// - Throws: ``DataStoreError`` when the stored record does not decode as `M`.
    func decode<M: Model>(
        _ type: M.Type,
        from row: [DatabaseValue],
        offset: Int = 0,
        decoder: JSONDecoder
    ) throws(DataStoreError)
        -> M
    {
        do {
            return try M(from: RecordDecoder(row: row, offset: offset, table: self, json: decoder))
        } catch let error as DataStoreError {
            throw error
        } catch {
            let data = jsonData(of: row, offset: offset)
            let identifier = Self.identifier(of: primaryKey.map { row[offset + columnIndex[$0]!] })
            throw DataStoreError(
                .storage,
                "The stored \(name) '\(identifier)' does not decode as the \(name) model: \(error). The stored record is "
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
