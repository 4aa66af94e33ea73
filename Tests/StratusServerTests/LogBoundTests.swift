import Foundation
import StratusCodegen
import Testing

@testable import StratusServer

/// What the server logs for one failure is bounded, whatever the client sent.
@Suite struct LogBoundTests {
    @Test func aLongMessageKeepsItsStartAndSaysItsLength() {
        #expect(LogLine.bounded("short") == "short")
        let long = String(repeating: "é", count: 3_000)
        let bounded = LogLine.bounded(long)
        #expect(bounded == String(repeating: "é", count: 2_048) + "… (truncated: the message has 6000 bytes)")
    }

    /// A filter of thousands of conditions that the store refuses: its failure quotes the SQL,
    /// hundreds of kilobytes of it, and each such request logged all of it.
    @Test func aFailingHugeFilterLogsABoundedLine() async throws {
        let server = try await TestServer(postSchema)
        let conditions = (0..<5_000).map { index -> JSON in ["title": ["eq": .string("title \(index)")]] }
        let body = await server.run(
            "query Q($filter: ModelPostFilterInput) { listPosts(filter: $filter) { items { id } } }",
            ["filter": ["or": .array(conditions)]]
        )
        let logged = server.log.messages
        #expect(logged.allSatisfy { $0.utf8.count <= LogLine.maximumBytes + 64 })
        // PostgreSQL takes such a filter; SQLite refuses it, and its error quotes the statement.
        guard !TestStore.isPostgres else { return }
        #expect(
            body
                == #"{"data":{"listPosts":null},"errors":[{"path":["listPosts"],"data":null,"errorType":"InternalFailure","#
                + #""errorInfo":null,"locations":[{"line":1,"column":42,"sourceName":null}],"#
                + #""message":"An internal failure occurred while resolving this field. The server log has the details."}]}"#
        )
        let line = try #require(logged.first)
        #expect(logged.count == 1)
        #expect(
            line.hasPrefix(
                "The resolver of 'listPosts' failed: SQLite error 1: Expression tree is too large (maximum depth 1000)"
                    + " - while executing `SELECT "
            )
        )
        let note = try #require(line.range(of: "… (truncated: the message has ", options: .backwards))
        #expect(line[note.upperBound...].hasSuffix(" bytes)"))
        #expect((Int(line[note.upperBound...].dropLast(" bytes)".count)) ?? 0) > 80_000)
    }
}
