import Foundation
import StratusServer
import StratusTesting
import Testing
import TodoAPI

@testable import AWSAppSync

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A client process queues mutations and replays them while being killed with SIGKILL at
/// random points, or quitting; the server must hold each mutation once. The client is
/// configured either way the guides show: with a cache directory, or with the seeds'
/// `databaseURL:`, which keeps the queue in that one file.
///
/// The suite runs 100 mutations and 4 kills; `STRATUS_EXACTLY_ONCE_FULL=1` runs 1,000 mutations
/// and 20 kills (about a minute on an idle machine).
@Suite struct ExactlyOnceTests {
    /// How the child configures its client.
    enum Configured: String, CaseIterable, Sendable {
        /// `AWSAppSyncCacheConfiguration(withRootDirectory:)`: `offlineMutations.db` in it.
        case cacheDirectory
        /// `AWSAppSyncClientConfiguration(appSyncClientInfo:databaseURL:)`: one file.
        case databaseURL

        /// The child's command and its location argument for `action` (`enqueue`, `drain`).
        func command(_ action: String, in directory: URL) -> [String] {
            switch self {
            case .cacheDirectory: [action, directory.path]
            case .databaseURL: [action + "-file", directory.appending(path: "database_name").path]
            }
        }

        /// The file that holds the queue.
        func queueFile(in directory: URL) -> URL {
            switch self {
            case .cacheDirectory: directory.appending(path: "offlineMutations.db")
            case .databaseURL: directory.appending(path: "database_name")
            }
        }
    }

    @Test(.timeLimit(.minutes(1))) func mutationsQueuedThroughTheSeedsDatabaseURLOutliveTheProcess() async throws {
        var configuration = ServerConfiguration()
        configuration.conflictDetection = false
        let backend = try await LocalBackend.start(schema: TodoSeedTests.schema, configuration: configuration)
        let directory = FileManager.default.temporaryDirectory.appending(path: "appsync-quit-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        do {
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            let executable = try Self.childExecutable()
            let configured = Configured.databaseURL
            // Queued while the backend cannot be reached; the process then quits.
            let enqueue = try await ChildProcess.run(
                [executable] + configured.command("enqueue", in: directory)
                    + ["http://127.0.0.1:1/graphql", backend.apiKey, "3"],
                in: directory
            )
            #expect(enqueue.status == .exited(0), "\(enqueue.outputText)\(enqueue.errorText)")
            #expect(enqueue.outputText == "ENQUEUED 3\n")
            let queued = try OfflineMutationStore.queuedMutations(inDatabaseAt: configured.queueFile(in: directory))
            #expect(queued.map(\.operationName) == ["CreateTodo", "CreateTodo", "CreateTodo"])

            // Reopened with the backend up: all three reach it, once each, and leave the queue.
            let drain = try await ChildProcess.run(
                [executable] + configured.command("drain", in: directory)
                    + [backend.endpoint.absoluteString, backend.apiKey],
                in: directory
            )
            #expect(drain.status == .exited(0), "\(drain.outputText)\(drain.errorText)")
            #expect(drain.outputText == "DRAINED\n")
            #expect(try await Self.names(on: backend) == ["item-0": 1, "item-1": 1, "item-2": 1])
            #expect(try OfflineMutationStore.queuedMutations(inDatabaseAt: configured.queueFile(in: directory)) == [])
        } catch {
            await backend.stop()
            throw error
        }
        await backend.stop()
    }

    @Test(.timeLimit(.minutes(5)), arguments: Configured.allCases)
    func killedClientsLoseNothingAndApplyEachMutationOnce(_ configured: Configured) async throws {
        let full = ProcessInfo.processInfo.environment["STRATUS_EXACTLY_ONCE_FULL"] == "1"
        let count = full ? 1_000 : 100
        let kills = full ? 20 : 4
        var configuration = ServerConfiguration()
        configuration.conflictDetection = false
        let backend = try await LocalBackend.start(schema: TodoSeedTests.schema, configuration: configuration)
        let directory = FileManager.default.temporaryDirectory.appending(
            path: "appsync-exactly-once-\(UUID().uuidString)"
        )
        defer { try? FileManager.default.removeItem(at: directory) }
        do {
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            let closed = "http://127.0.0.1:1/graphql"
            // Half the kills while queueing (offline), half while replaying.
            var killed = 0
            try await runChild(
                configured.command("enqueue", in: directory) + [closed, backend.apiKey, String(count)],
                until: "ENQUEUED",
                in: directory,
                kills: kills / 2,
                killed: &killed
            )
            let queued = try OfflineMutationStore.queuedMutations(inDatabaseAt: configured.queueFile(in: directory))
            #expect(queued.count == count)
            try await runChild(
                configured.command("drain", in: directory) + [backend.endpoint.absoluteString, backend.apiKey],
                until: "DRAINED",
                in: directory,
                kills: kills - kills / 2,
                killed: &killed
            )
            // A phase may end before all its kills landed; each had at least one.
            #expect(killed >= 2)

            let names = try await Self.names(on: backend)
            // Nothing lost, whatever the server.
            #expect(Set(names.keys) == Set((0..<count).map { "item-\($0)" }))
            // Creates with a client id cannot be applied twice: a second one is refused.
            #expect((0..<count).filter { $0.isMultiple(of: 2) }.allSatisfy { names["item-\($0)"] == 1 })
            // Creates without a client id are applied once only by a server that keeps the
            // first response per Idempotency-Key; without that, a mutation the server applied
            // just before a kill, and that was still queued, is applied again on replay.
            let duplicates = names.values.reduce(0) { $0 + $1 - 1 }
            if try await Self.serverHonoursIdempotencyKeys(backend) {
                #expect(duplicates == 0)
            } else {
                #expect(duplicates <= kills - kills / 2)
            }
        } catch {
            await backend.stop()
            throw error
        }
        await backend.stop()
    }

    /// How many todos of each name the backend holds.
    static func names(on backend: LocalBackend) async throws -> [String: Int] {
        var names: [String: Int] = [:]
        var nextToken: String?
        repeat {
            let page = try await backend.perform(ListTodosQuery(limit: 1_000, nextToken: nextToken))
            for item in page.data?.listTodos?.items ?? [] {
                if let name = item?.name { names[name, default: 0] += 1 }
            }
            nextToken = page.data?.listTodos?.nextToken
        } while nextToken != nil
        return names
    }

    /// Runs the child with `arguments`, killing it up to `kills` times at random points, then
    /// lets a last run finish and print `marker`.
    private func runChild(
        _ arguments: [String],
        until marker: String,
        in directory: URL,
        kills: Int,
        killed: inout Int
    ) async throws {
        let executable = try Self.childExecutable()
        var remaining = kills
        var run = 0
        while true {
            run += 1
            let output = directory.appending(path: "child-\(arguments[0])-\(run).txt")
            let child = try await ChildProcess.start([executable] + arguments, in: directory, output: output)
            if remaining > 0 {
                try await Task.sleep(for: .milliseconds(Int.random(in: 50...250)))
                if child.isRunning {
                    child.kill()
                    _ = try await child.wait()
                    killed += 1
                    remaining -= 1
                    continue
                }
            }
            let status = try await child.wait(timeout: .seconds(120))
            let text = try String(contentsOf: output, encoding: .utf8)
            #expect(status == .exited(0), "\(arguments[0]) ended with \(String(describing: status)): \(text)")
            // A run that finished before its kill came ends the phase: there is nothing left to
            // interrupt.
            if text.contains(marker) { return }
            throw ExactlyOnceFailure(description: "\(arguments[0]) did not print \(marker): \(text)")
        }
    }

    /// Whether the server answers a repeated request with the same `Idempotency-Key` with the
    /// first response, instead of applying it again.
    static func serverHonoursIdempotencyKeys(_ backend: LocalBackend) async throws -> Bool {
        let key = UUID().uuidString
        var ids: [String] = []
        for _ in 0..<2 {
            var request = URLRequest(url: backend.endpoint)
            request.httpMethod = "POST"
            request.setValue("application/json", forHTTPHeaderField: "content-type")
            request.setValue(backend.apiKey, forHTTPHeaderField: "x-api-key")
            request.setValue(key, forHTTPHeaderField: "Idempotency-Key")
            request.httpBody = Data(
                AWSAppSyncClient.requestBody(CreateTodoMutation(input: CreateTodoInput(name: "probe"))).utf8
            )
            let (data, _) = try await URLSession.shared.data(for: request)
            let id = try JSONValue(parsing: data).objectValue?["data"]?.objectValue?["createTodo"]?.objectValue?["id"]
            ids.append(id?.stringValue ?? "")
        }
        return ids[0] == ids[1]
    }

    /// The child executable next to the running test bundle.
    static func childExecutable() throws -> String {
        var directory = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
            .deletingLastPathComponent()
        for _ in 0..<4 {
            let candidate = directory.appending(path: "AppSyncQueueChild")
            if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate.path }
            directory.deleteLastPathComponent()
        }
        throw ExactlyOnceFailure(
            description: "No AppSyncQueueChild next to the test bundle. Build it with `swift build --build-tests`."
        )
    }
}

/// The child of the exactly-once test did not behave.
struct ExactlyOnceFailure: Error, CustomStringConvertible {
    let description: String
}
