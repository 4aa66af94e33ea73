import Foundation
import StratusServer

/// The custom conflict handler of `--conflicts custom`: a rule that differs from AUTOMERGE so
/// the check can tell that the handler decided.
///
/// - An update of a live record is resolved: the server's record, with `ops` its own plus the
///   incoming write's last id, and the text field (a folder's `name`, a note's `title`) the
///   incoming write's. (AUTOMERGE appends `ops` the same way but keeps the server's text.)
/// - A delete, or an update of a record the server deleted, is rejected (`ConflictUnhandled`):
///   the device's conflict handler then keeps the server's record.
///
/// On SQLite the server in the harness's process runs it as a closure; the `stratus serve`
/// instances of the PostgreSQL cluster run it as a command, this program as
/// `StratusBench chaos-conflict-handler`.
enum ChaosConflictRule {
    /// The field a resolution takes from the incoming write, by model.
    static let incomingField = ["Folder": "name", "Note": "title"]

    /// The decision for a conflict of `resolver` (`updateNote`, `deleteFolder`) on a
    /// `typeName` record between `newItem` (the write as sent) and `existingItem` (the server's).
    static func decide(
        typeName: String,
        resolver: String,
        newItem: JSONObject,
        existingItem: JSONObject
    ) -> ConflictResolution {
        guard !resolver.hasPrefix("delete"), existingItem["_deleted"]?.boolValue != true,
            let op = newItem["ops"]?.arrayValue?.last, let field = incomingField[typeName]
        else { return .reject }
        var resolved = existingItem
        resolved["ops"] = .array((existingItem["ops"]?.arrayValue ?? []) + [op])
        if let value = newItem[field] { resolved[field] = value }
        return .resolve(resolved)
    }

    /// The rule as a server's custom conflict handler.
    static let handler: ConflictHandler = { context in
        decide(
            typeName: context.typeName,
            resolver: context.resolver,
            newItem: context.newItem,
            existingItem: context.existingItem
        )
    }

    /// The answer to a conflict handler command's `payload` (the JSON document `stratus serve`
    /// writes to its standard input).
    ///
    /// - Throws: ``ChaosError`` naming what the payload lacks.
    static func answer(_ payload: Data) throws -> String {
        guard case .object(let document) = try JSON(parsing: payload) else {
            throw ChaosError("chaos-conflict-handler: the payload is not a JSON object.")
        }
        guard let typeName = document["typeName"]?.stringValue, let resolver = document["resolver"]?.stringValue,
            let newItem = document["newItem"]?.objectValue, let existingItem = document["existingItem"]?.objectValue
        else {
            throw ChaosError(
                "chaos-conflict-handler: the payload lacks typeName, resolver, newItem or existingItem: "
                    + String(decoding: payload.prefix(300), as: UTF8.self)
            )
        }
        let answer: JSON =
            switch decide(typeName: typeName, resolver: resolver, newItem: newItem, existingItem: existingItem) {
            case .resolve(let item): ["action": "RESOLVE", "resolvedItem": .object(item)]
            case .reject: ["action": "REJECT"]
            case .remove: ["action": "REMOVE"]
            }
        return answer.text
    }
}
