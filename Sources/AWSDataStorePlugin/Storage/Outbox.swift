import Amplify
import GRDB

/// The pending changes to send to the backend: one ``MutationEvent`` a row of
/// `_stratus_outbox`, in the order they were made.
///
/// A save or delete appends its events in the same transaction as the records it writes, so the
/// outbox never misses a committed change and never holds one that was rolled back.
enum Outbox {
    /// The table the events are stored in.
    static let table = SystemTables.outbox

    /// The statement that appends an event.
    static let insertEvent = """
        INSERT INTO "\(table)" ("id", "modelName", "modelId", "mutationType", "json", "createdAt", "version", \
        "graphQLFilterJSON") VALUES (?, ?, ?, ?, ?, ?, ?, ?)
        """

    /// Appends `event`.
    static func enqueue(_ event: MutationEvent, _ db: Database) throws {
        let statement = try db.cachedStatement(sql: insertEvent)
        try statement.execute(arguments: [
            event.id, event.modelName, event.modelId, event.mutationType, event.json,
            event.createdAt.iso8601String, event.version, event.graphQLFilterJSON,
        ])
    }

    /// The pending events, oldest first.
    static func events(_ db: Database) throws -> [MutationEvent] {
        try Row.fetchAll(
            db,
            sql: """
                SELECT "id", "modelName", "modelId", "mutationType", "json", "createdAt", "version", "graphQLFilterJSON"
                FROM "\(table)" ORDER BY "sequence"
                """
        ).map { row in
            MutationEvent(
                id: row[0],
                modelId: row[2],
                modelName: row[1],
                json: row[4],
                mutationType: MutationEvent.MutationType(rawValue: row[3]) ?? .update,
                createdAt: (try? Temporal.DateTime(iso8601String: row[5])) ?? .now(),
                version: row[6],
                graphQLFilterJSON: row[7]
            )
        }
    }
}
