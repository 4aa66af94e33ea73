import AWSAppSync
import Foundation
import Testing

/// `stratus queue list`: the mutations an AppSync client has queued.
@Suite struct QueueCommandTests {
    @Test func listShowsEachQueuedMutationHowOftenItWasTriedAndItsLastError() async throws {
        let directory = try TemporaryDirectory()
        let store = try OfflineMutationStore(
            databaseURL: directory.url.appending(path: "todo_API_KEY_offlineMutations.db")
        )
        let first = try store.enqueue(id: "m-1", operationName: "CreateTodo", requestBody: #"{"query":"mutation"}"#)
        let second = try store.enqueue(id: "m-2", operationName: "DeleteTodo", requestBody: #"{"query":"mutation"}"#)
        try store.recordFailure(of: "m-1", error: "The request to http://127.0.0.1:1/graphql failed: refused.")
        try store.recordFailure(
            of: "m-1",
            error: "http://127.0.0.1:1/graphql refused CreateTodo with HTTP 503: no body."
        )
        _ = try OfflineMutationStore(databaseURL: directory.url.appending(path: "other_offlineMutations.db"))

        let process = try await StratusProcess(["queue", "list", "--database", directory.url.path], in: directory.url)
        #expect(try await process.exitStatus() == 0, "stratus failed: \(process.standardError)")
        let formatter = ISO8601DateFormatter()
        #expect(
            process.standardOutput == """
                other_offlineMutations.db: no queued mutations
                todo_API_KEY_offlineMutations.db: 2 queued mutations, sent in this order
                1. CreateTodo m-1, queued \(formatter.string(from: first.createdAt)), 2 failed attempts
                   last error: http://127.0.0.1:1/graphql refused CreateTodo with HTTP 503: no body.
                2. DeleteTodo m-2, queued \(formatter.string(from: second.createdAt)), 0 failed attempts

                """
        )
    }

    @Test func listNamesTheDirectoryWithoutAQueue() async throws {
        let directory = try TemporaryDirectory()
        let process = try await StratusProcess(["queue", "list", "--database", directory.url.path], in: directory.url)
        #expect(try await process.exitStatus() == 1)
        #expect(
            process.standardError
                == "Error: No offlineMutations.db in '\(directory.url.path)'. Pass the cache directory of an AppSync "
                + "client (the rootDirectory of its AWSAppSyncCacheConfiguration; ~/.cache/appsync by default).\n"
        )
    }
}
