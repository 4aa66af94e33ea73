import Amplify
import Foundation
import GRDB

/// A model's values as its table stores them.
struct StoredRecord: Sendable {
    /// One value per column, in column order.
    let values: [DatabaseValue]
    /// The primary-key values, in key order.
    let keyValues: [DatabaseValue]
    /// The model's identifier: the key values joined with `#`.
    let identifier: String
}

extension ModelTable {
    /// The stored values of `json`, the model encoded as a JSON object.
    ///
    /// - Throws: ``DataStoreError`` with ``DataStoreError/Code/invalidModel`` naming the model,
    ///   the field and the fix when a required field has no value or a value has the wrong type.
    func record(from json: JSONValue) throws(DataStoreError) -> StoredRecord {
        guard case .object(let members) = json else {
            throw DataStoreError(
                .invalidModel,
                "A \(name) must encode as a JSON object, but it encodes as \(json.shortDescription). "
                    + "Regenerate the model with `stratus codegen models`."
            )
        }
        var values: [DatabaseValue] = []
        values.reserveCapacity(columns.count)
        for column in columns {
            values.append(try storedValue(of: column, in: members))
        }
        let keyValues = primaryKey.map { values[columnIndex[$0]!] }
        return StoredRecord(values: values, keyValues: keyValues, identifier: Self.identifier(of: keyValues))
    }

    /// The model identifier that `keyValues` make: the values joined with `#`, as
    /// `Model.identifier` joins them.
    static func identifier(of keyValues: [DatabaseValue]) -> String {
        keyValues.map { value -> String in
            switch value.storage {
            case .string(let string): return string
            case .int64(let int): return String(int)
            case .double(let double): return String(double)
            case .blob, .null: return ""
            }
        }
        .joined(separator: ModelSchema.identifierSeparator)
    }

    private func storedValue(
        of column: ModelColumn,
        in members: [String: JSONValue]
    ) throws(DataStoreError)
        -> DatabaseValue
    {
        guard let value = members[column.name], !value.isNull else {
            guard !column.isRequired else {
                let hint = column.association.map { "\($0) (or \(column.name))" } ?? column.name
                throw DataStoreError(
                    .invalidModel,
                    "\(name).\(column.name) is required, but the \(name) being saved has no value for it. "
                        + "Set \(hint) before saving."
                )
            }
            return .null
        }
        if let stored = try Self.databaseValue(value, kind: column.kind) {
            return stored
        }
        var detail = ""
        if case .temporal(let kind) = column.kind, case .string(let text) = value,
            let error = Self.temporalError(text, kind)
        {
            detail = " (\(error))"
        }
        throw DataStoreError(
            .invalidModel,
            "\(name).\(column.name) is \(column.typeName), but the \(name) being saved holds "
                + "\(value.shortDescription) there\(detail). Store a value of type \(column.typeName) in "
                + "\(column.name), or regenerate the models with `stratus codegen models` if the schema changed."
        )
    }

    /// `value` as a column of `kind` stores it, or `nil` when it does not fit.
    ///
    /// - Throws: ``DataStoreError`` with ``DataStoreError/Code/invalidModel`` when an embedded
    ///   value or a list holds a number JSON cannot write (infinite or NaN).
    static func databaseValue(_ value: JSONValue, kind: ColumnKind) throws(DataStoreError) -> DatabaseValue? {
        switch (kind, value) {
        case (.string, .string(let string)):
            return string.databaseValue
        case (.integer, .integer(let int)):
            return Int64(int).databaseValue
        case (.integer, .number):
            return value.intValue.map { Int64($0).databaseValue }
        case (.double, .integer(let int)):
            return Double(int).databaseValue
        case (.double, .number(let double)):
            return double.databaseValue
        case (.boolean, .boolean(let bool)):
            return Int64(bool ? 1 : 0).databaseValue
        case (.temporal(let temporal), .string(let string)):
            return temporalError(string, temporal) == nil ? string.databaseValue : nil
        case (.object, .object):
            return try CanonicalJSON.text(of: value).databaseValue
        case (.list(let elementKind), .array(let elements)):
            for element in elements where !element.isNull {
                guard try databaseValue(element, kind: elementKind) != nil else { return nil }
            }
            return try CanonicalJSON.text(of: value).databaseValue
        default:
            return nil
        }
    }

    /// The primary-key values of the record `json`, as stored.
    ///
    /// - Throws: ``DataStoreError`` when a key field has no valid value.
    func keyValues(of json: JSONValue) throws(DataStoreError) -> [DatabaseValue] {
        var values: [DatabaseValue] = []
        for name in primaryKey {
            guard let value = json[name], !value.isNull,
                let stored = try ModelTable.databaseValue(value, kind: column(named: name)!.kind)
            else {
                throw DataStoreError(
                    .invalidModel,
                    "The \(self.name) has no valid value for its key field \(name), so it cannot name a stored record."
                )
            }
            values.append(stored)
        }
        return values
    }

    /// Why `text` is not a valid value of `kind`, or `nil` when it is.
    static func temporalError(_ text: String, _ kind: ColumnKind.TemporalKind) -> String? {
        do {
            switch kind {
            case .date: _ = try Temporal.Date(iso8601String: text)
            case .dateTime: _ = try Temporal.DateTime(iso8601String: text)
            case .time: _ = try Temporal.Time(iso8601String: text)
            }
            return nil
        } catch {
            return error.description
        }
    }

    /// A stored value as the JSON the model encodes it to.
    ///
    /// - Throws: ``UnreadableJSON`` when an embedded value or a list is stored as text that is not
    ///   JSON; the caller names the record.
    static func jsonValue(_ value: DatabaseValue, kind: ColumnKind) throws(UnreadableJSON) -> JSONValue {
        switch (kind, value.storage) {
        case (_, .null): return .null
        case (.boolean, .int64(let int)): return .boolean(int != 0)
        case (_, .int64(let int)): return .integer(Int(int))
        case (_, .double(let double)): return .number(double)
        case (.object, .string(let text)), (.list, .string(let text)):
            do {
                return try JSONValue(parsing: text)
            } catch {
                throw UnreadableJSON(text: text, reason: "\(error)")
            }
        case (_, .string(let text)): return .string(text)
        case (_, .blob): return .null
        }
    }
}

/// Stored text of an embedded value or a list that is not JSON.
struct UnreadableJSON: Error, CustomStringConvertible {
    /// The stored text.
    let text: String
    /// Why the parser refused it.
    let reason: String

    /// The text, shortened when long, and the reason.
    var description: String {
        let shown = text.count > 60 ? String(text.prefix(57)) + "..." : text
        return "the stored text '\(shown)' is not JSON (\(reason))"
    }
}

extension ModelTable {
    /// The error for a record whose column `column` holds unreadable JSON.
    func unreadable(_ error: UnreadableJSON, column: ModelColumn, identifier: String) -> DataStoreError {
        DataStoreError(
            .invalidDatabase,
            "The stored \(name) '\(identifier)' cannot be read: in \(column.name), \(error). The database was "
                + "changed outside DataStore. Save the \(name) again with a valid \(column.name), or delete it."
        )
    }
}

extension JSONValue {
    /// A short description of the value for messages: `"4" (a string)`, `12 (a number)`.
    var shortDescription: String {
        // Only for a message: a value JSON cannot write is described as Swift prints it.
        let text = (try? CanonicalJSON.text(of: self)) ?? String(describing: self)
        let shown = text.count > 60 ? String(text.prefix(57)) + "..." : text
        switch self {
        case .string: return "\(shown) (a string)"
        case .integer, .number: return "\(shown) (a number)"
        case .boolean: return "\(shown) (a boolean)"
        case .object: return "\(shown) (an object)"
        case .array: return "\(shown) (a list)"
        case .null: return "null"
        }
    }
}

/// JSON text with sorted keys and unescaped slashes: the form embedded values and lists are
/// stored in, so that equal values store equal text.
enum CanonicalJSON {
    /// The text of `value`.
    ///
    /// - Throws: ``DataStoreError`` with ``DataStoreError/Code/invalidModel`` when `value` holds a
    ///   number JSON cannot write (infinite or NaN).
    static func text(of value: JSONValue) throws(DataStoreError) -> String {
        guard let text = value.canonicalText else {
            throw DataStoreError(
                .invalidModel,
                "A value cannot be written as JSON: it holds an infinite or NaN number, which JSON cannot hold. "
                    + "Use finite values."
            )
        }
        return text
    }
}
