import AWSWire
import Amplify
import Foundation
import GRDB

extension ModelTable {
    /// The record in `row` as a JSON object with sorted keys: what models decode from and what
    /// the outbox stores. The table's columns start at `offset`; null columns are left out.
    func jsonText(of row: [DatabaseValue], offset: Int = 0) -> String {
        var writer = JSONTextWriter(sortsKeys: true, doubleStyle: .keepsFraction)
        writer.text.reserveCapacity(256)
        writer.writeObject { writer in
            for index in jsonOrder {
                let value = row[offset + index]
                if value.isNull { continue }
                let column = columns[index]
                writer.writeKey(column.name)
                switch (column.kind, value.storage) {
                case (.boolean, .int64(let int)):
                    writer.write(int != 0)
                case (_, .int64(let int)):
                    // Its digits, as an `Int64`: an `Int` may be narrower.
                    writer.writeJSONText(String(int))
                case (_, .double(let double)) where double.isFinite:
                    // `String(Double)` is the text `.keepsFraction` writes for every finite double,
                    // without the `String(format:)` it takes for a whole one (some thirty times
                    // slower): every record the backend sends is written here.
                    writer.writeJSONText(String(double))
                case (_, .double):
                    writer.writeNull()
                case (.object, .string(let text)), (.list, .string(let text)):
                    writer.writeJSONText(text)
                case (_, .string(let text)):
                    writer.write(text)
                case (_, .blob), (_, .null):
                    writer.writeNull()
                }
            }
        }
        return writer.text
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
            let text = jsonText(of: row, offset: offset)
            let identifier = Self.identifier(of: primaryKey.map { row[offset + columnIndex[$0]!] })
            throw DataStoreError(
                .storage,
                "The stored \(name) '\(identifier)' does not decode as the \(name) model: \(error). The stored record is "
                    + "\(text). Regenerate the models with `stratus codegen models` "
                    + "and bump the registration's version so the store migrates."
            )
        }
    }
}
