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

    /// A failure whose message quotes what the client or the data holds, here a stored value of
    /// 100 kB that does not fit its column: the log keeps the line's start and its length, not
    /// all of it. (A filter of thousands of conditions once did this; it is refused before the
    /// store now, see `FilterTests`.)
    @Test(.enabled(if: !TestStore.isPostgres, "writes into the SQLite file"))
    func aFailureQuotingAHugeValueLogsABoundedLine() async throws {
        let directory = temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let huge = String(repeating: "x", count: 100_000)
        try await StorageTests.storePost(
            in: directory,
            thenExecute: #"UPDATE "Post" SET "rating" = ?"#,
            arguments: [huge]
        )

        let server = try await TestServer(postSchema, directory: directory)
        #expect(
            await server.run(#"{ getPost(id: "p1") { id } }"#)
                == #"{"data":{"getPost":null},"errors":[{"path":["getPost"],"data":null,"errorType":"InternalFailure","#
                + #""errorInfo":null,"locations":[{"line":1,"column":3,"sourceName":null}],"#
                + #""message":"An internal failure occurred while resolving this field. The server log has the details."}]}"#
        )
        let logged = server.log.messages
        #expect(logged.allSatisfy { $0.utf8.count <= LogLine.maximumBytes + 64 })
        let line = try #require(logged.last)
        #expect(
            line.hasPrefix(
                "The resolver of 'getPost' failed: The data directory holds data that cannot be read (the value of "
                    + #"'Post.rating' in the item {id: "p1"} cannot be read: the stored value "xxx"#
            )
        )
        let note = try #require(line.range(of: "… (truncated: the message has ", options: .backwards))
        #expect(line[note.upperBound...].hasSuffix(" bytes)"))
        #expect((Int(line[note.upperBound...].dropLast(" bytes)".count)) ?? 0) > 100_000)
    }
}
