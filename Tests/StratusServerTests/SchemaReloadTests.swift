import Foundation
import StratusBackend
import StratusCodegen
import Testing

@testable import StratusServer

/// `stratus serve --watch`: the schema reloaded while the listener and the real-time
/// connections stay up (``Backend/watch(_:every:load:report:)``).
@Suite struct SchemaReloadTests {
    static let todo = "type Todo @model { id: ID! name: String! }"

    /// A backend serving the schema file of a temporary directory, watching it.
    struct Watched {
        let schemaFile: URL
        let port: Int
        var reports: AsyncStream<Result<[SchemaChange], any Error>>.Iterator

        var graphQLURL: URL { URL(string: "http://127.0.0.1:\(port)/graphql")! }

        /// The response body of a POST of `query`.
        func post(_ query: String) async throws -> String {
            let body: JSON = ["query": .string(query)]
            return try await HTTPEndpointTests.exchange(
                graphQLURL,
                body: body.text,
                headers: ["x-api-key": "da2-valid", "content-type": "application/json"]
            ).body
        }

        /// A connected socket, acknowledged.
        func connect() async throws -> RealtimeSocket {
            let header: JSON = ["host": .string("127.0.0.1:\(port)"), "x-api-key": "da2-valid"]
            let socket = RealtimeSocket(
                url: "ws://127.0.0.1:\(port)/graphql/realtime?header="
                    + Data(header.text.utf8).base64EncodedString() + "&payload=e30="
            )
            socket.send(#"{"type":"connection_init","payload":{}}"#)
            #expect(try await socket.next() == #"{"type":"connection_ack","payload":{"connectionTimeoutMs":300000}}"#)
            return socket
        }

        /// Rewrites the schema file and waits for the watch to report on it.
        mutating func edit(_ schema: String) async throws -> Result<[SchemaChange], any Error> {
            try Data(schema.utf8).write(to: schemaFile)
            let outcome = await reports.next()
            return try #require(outcome)
        }
    }

    static func withWatchedBackend(_ body: (inout Watched) async throws -> Void) async throws {
        let directory = FileManager.default.temporaryDirectory.appending(path: "stratus-reload-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let schemaFile = directory.appending(path: "schema.graphql")
        try Data(todo.utf8).write(to: schemaFile)
        let files = WatchedFiles([schemaFile])
        let backend = try await Backend.open(
            Backend.Configuration(
                schema: try SchemaParser().parse(todo, fileName: "schema.graphql"),
                store: .dataDirectory(directory.appending(path: "data")),
                authorization: ServerAuthorization(defaultMode: .apiKey, apiKeys: [APIKey(value: "da2-valid")]),
                log: { _ in }
            )
        )
        defer { try? backend.close() }
        let serving = try await backend.start()
        let (reports, report) = AsyncStream.makeStream(of: Result<[SchemaChange], any Error>.self)
        let watch = Task {
            await backend.watch(
                files,
                every: .milliseconds(20),
                load: {
                    let source = try String(contentsOf: schemaFile, encoding: .utf8)
                    return (try SchemaParser().parse(source, fileName: "schema.graphql"), nil)
                },
                report: { report.yield($0) }
            )
        }
        var watched = Watched(schemaFile: schemaFile, port: serving.port, reports: reports.makeAsyncIterator())
        do {
            try await body(&watched)
        } catch {
            watch.cancel()
            await watch.value
            await serving.stop()
            throw error
        }
        watch.cancel()
        await watch.value
        await serving.stop()
    }

    @Test func aNewModelIsServedAndOpenSubscriptionsKeepHearing() async throws {
        try await Self.withWatchedBackend { watched in
            let socket = try await watched.connect()
            socket.send(RealtimeTests.start("1", "subscription { onCreateTodo { id name } }"))
            #expect(try await socket.next() == #"{"id":"1","type":"start_ack"}"#)

            let outcome = try await watched.edit(Self.todo + "\ntype Note @model { id: ID! text: String }")
            #expect(try outcome.get().map(\.description) == ["added model 'Note'"])

            #expect(
                try await watched.post(#"mutation { createNote(input: {id: "n1", text: "New"}) { id text } }"#)
                    == #"{"data":{"createNote":{"id":"n1","text":"New"}}}"#
            )
            #expect(
                try await watched.post(#"mutation { createTodo(input: {id: "t1", name: "After"}) { id name } }"#)
                    == #"{"data":{"createTodo":{"id":"t1","name":"After"}}}"#
            )
            // The subscription started on the previous server hears the write of the new one.
            #expect(
                try await socket.next()
                    == #"{"id":"1","type":"data","payload":{"data":{"onCreateTodo":{"id":"t1","name":"After"}}}}"#
            )
            await socket.close()
        }
    }

    @Test func aSchemaThatDoesNotParseIsReportedAndTheOldOneServes() async throws {
        try await Self.withWatchedBackend { watched in
            let broken = "type Todo @model { id: ID! name: String! "
            let outcome = try await watched.edit(broken)
            #expect(throws: (any Error).self) { try outcome.get() }
            if case .failure(let error) = outcome {
                #expect("\(error)".hasPrefix("schema.graphql:1:"), "\(error)")
            }
            #expect(
                try await watched.post(#"mutation { createTodo(input: {id: "t1", name: "Kept"}) { id name } }"#)
                    == #"{"data":{"createTodo":{"id":"t1","name":"Kept"}}}"#
            )
        }
    }

    @Test func aChangeThatWouldLoseDataIsRefusedAndTheOldSchemaServes() async throws {
        try await Self.withWatchedBackend { watched in
            #expect(
                try await watched.post(#"mutation { createTodo(input: {id: "t1", name: "Before"}) { id } }"#)
                    == #"{"data":{"createTodo":{"id":"t1"}}}"#
            )
            let outcome = try await watched.edit("type Todo @model { id: ID! name: Int! }")
            guard case .failure(let error) = outcome, case .store(let refusal)? = error as? BackendError else {
                Issue.record("Expected a refusal, got \(outcome)")
                return
            }
            #expect(
                refusal.refusedSchemaChanges.map(\.description)
                    == ["changed the type of 'Todo.name' from String! to Int!"]
            )
            #expect(
                try await watched.post(#"query { getTodo(id: "t1") { id name } }"#)
                    == #"{"data":{"getTodo":{"id":"t1","name":"Before"}}}"#
            )
        }
    }
}
