import Amplify
import GRDB
import Synchronization

/// The predicate operations a query leaves to the in-memory evaluator, for the SQL function
/// `stratus_matches(token, column…, key column…)` to run.
///
/// SQL decides the common comparisons (strings, numbers, booleans, lists of those). Comparisons
/// whose meaning SQL cannot express exactly, such as ISO 8601 values compared by the instant
/// they name or embedded values compared structurally, call back into
/// ``QueryPredicate/evaluate(target:schema:)`` so that a query selects exactly the records the
/// in-memory evaluator selects. A query registers its operations for the time it runs and binds
/// their tokens as arguments.
final class InMemoryConditions: Sendable {
    /// One operation and the columns its field is read from.
    struct Entry: Sendable {
        let operation: QueryPredicateOperation
        let schema: ModelSchema
        let columns: [ModelColumn]
        /// The table, whose primary-key columns follow `columns` in the call, to name the record
        /// in an error.
        let table: ModelTable
    }

    private struct State {
        var nextToken: Int64 = 1
        var entries: [Int64: Entry] = [:]
    }

    private let state = Mutex(State())

    /// The SQL function's name.
    static let functionName = "stratus_matches"

    /// Registers `entry` and returns the token that names it in SQL.
    func register(_ entry: Entry) -> Int64 {
        state.withLock { state in
            let token = state.nextToken
            state.nextToken += 1
            state.entries[token] = entry
            return token
        }
    }

    /// Forgets the entries of `tokens`, once their query has run.
    func release(_ tokens: [Int64]) {
        guard !tokens.isEmpty else { return }
        state.withLock { state in
            for token in tokens { state.entries[token] = nil }
        }
    }

    /// The number of registered entries (for tests: none should outlive their query).
    var count: Int { state.withLock { $0.entries.count } }

    /// The SQL function, to add to every connection.
    var function: DatabaseFunction {
        DatabaseFunction(Self.functionName, argumentCount: nil, pure: true) { [self] values in
            try evaluate(values) ? 1 : 0
        }
    }

    private func evaluate(_ values: [DatabaseValue]) throws -> Bool {
        guard let token = values.first.flatMap(Int64.fromDatabaseValue),
            let entry = state.withLock({ $0.entries[token] })
        else {
            throw DatabaseError(message: "\(Self.functionName) was called with an unknown token")
        }
        var members: [String: JSONValue] = [:]
        for (column, value) in zip(entry.columns, values.dropFirst()) where !value.isNull {
            do {
                members[column.name] = try ModelTable.jsonValue(value, kind: column.kind)
            } catch {
                let key = Array(values.dropFirst(1 + entry.columns.count))
                let message = entry.table.unreadable(error, column: column, identifier: ModelTable.identifier(of: key))
                throw DatabaseError(message: message.message)
            }
        }
        return try entry.operation.evaluate(target: .object(members), schema: entry.schema)
    }
}
