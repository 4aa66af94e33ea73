// A terminal todo list on the AppSync client: the list is watched in the normalized cache,
// additions go through the offline queue with an optimistic update, and subscriptions bring
// what other clients add, change and delete (deleted todos stay as tombstones, `_deleted`, and
// are not shown). Start the backend, then run this in two terminals with different caches, or
// beside `todo-sync`: what one adds shows up in the other, and what is added while the backend
// is down is sent when it is back.
//
//     swift run stratus serve --schema Examples/Todo/schema.graphql
//     swift run todo-appsync --cache /tmp/appsync-a
//     swift run todo-appsync --cache /tmp/appsync-b
//
// Commands: `add <name>`, `list` (from the cache), `refresh` (from the server), `quit`;
// `todo-appsync --help` prints them with the options.
//
// `API.swift` is generated from the schema:
//
//     swift run stratus codegen types --schema Examples/Todo/schema.graphql \
//         --output Examples/TodoAppSync/Sources/API.swift
import AWSAppSync
import Foundation
import Synchronization

/// The command line: `--config` (default `awsconfiguration.json`, which `stratus serve` writes)
/// and `--cache` (the directory of this client's three databases).
struct Options {
    var config = URL(fileURLWithPath: "awsconfiguration.json")
    var cache = URL(fileURLWithPath: ".todo-appsync")
    var help = false

    init(_ arguments: [String]) throws(UsageError) {
        var iterator = arguments.makeIterator()
        while let argument = iterator.next() {
            if argument == "--help" || argument == "-h" {
                help = true
                continue
            }
            guard let value = iterator.next() else { throw UsageError(argument: argument) }
            switch argument {
            case "--config": config = URL(fileURLWithPath: value)
            case "--cache": cache = URL(fileURLWithPath: value, isDirectory: true)
            default: throw UsageError(argument: argument)
            }
        }
    }

    static let usage = """
        Usage: todo-appsync [--config awsconfiguration.json] [--cache .todo-appsync]

        A terminal todo list over `stratus serve`. Start the backend first, in this directory:
            swift run stratus serve --schema Examples/Todo/schema.graphql
        which writes awsconfiguration.json here.

        \(commands)
        """

    static let commands = "Commands: add <name>, list (from the cache), refresh (from the server), quit"
}

struct UsageError: Error, CustomStringConvertible {
    let argument: String
    var description: String {
        "Unknown or incomplete option '\(argument)'. Run todo-appsync --help for the options."
    }
}

/// Prints `message` on standard error and exits with `status`.
func fail(_ message: String, status: Int32) -> Never {
    FileHandle.standardError.write(Data((message + "\n").utf8))
    exit(status)
}

/// The lines typed on standard input, read on a thread of their own.
func inputLines() -> AsyncStream<String> {
    AsyncStream { continuation in
        Thread.detachNewThread {
            while let line = readLine() { continuation.yield(line) }
            continuation.finish()
        }
    }
}

/// Prints the todos of a list result, numbered.
func show(_ result: GraphQLResult<ListTodosQuery.Data>?, _ error: (any Error)?) {
    if let error {
        print("list: \(error)")
        return
    }
    // Deleted todos stay in the list as tombstones (`_deleted`) for other devices to sync.
    let items = (result?.data?.listTodos?.items ?? []).compactMap { $0 }.filter { $0.deleted != true }
    let source = result?.source == .cache ? "cache" : "server"
    print("— \(items.count) todo(s), from the \(source)")
    for (number, item) in items.enumerated() {
        print("  \(number + 1). \(item.name)" + (item.description.map { " (\($0))" } ?? ""))
    }
}

/// Adds `item` to the cached list unless it is there already; nothing to do before the list
/// was first fetched.
func append(_ item: ListTodosQuery.Data.ListTodo.Item, to transaction: ReadWriteTransaction?) throws {
    do {
        try transaction?.update(query: ListTodosQuery()) { (data: inout ListTodosQuery.Data) in
            guard data.listTodos?.items.contains(where: { $0?.id == item.id }) == false else { return }
            data.listTodos?.items.append(item)
        }
    } catch let error as AWSAppSyncClientError where error.code == .cacheMiss {
        return
    }
}

let options: Options
do {
    options = try Options(Array(CommandLine.arguments.dropFirst()))
} catch {
    fail("\(error)", status: 64)
}
if options.help {
    print(Options.usage)
    exit(0)
}
guard FileManager.default.fileExists(atPath: options.config.path) else {
    fail(
        "No \(options.config.lastPathComponent) at \(options.config.path). Start the backend in this directory "
            + "with `swift run stratus serve --schema Examples/Todo/schema.graphql`, which writes it, or pass "
            + "--config with the file it wrote.",
        status: 1
    )
}
let appSyncClient: AWSAppSyncClient
do {
    var appSyncConfig = try AWSAppSyncClientConfiguration(
        appSyncServiceConfig: AWSAppSyncServiceConfig(configurationFile: options.config),
        cacheConfiguration: AWSAppSyncCacheConfiguration(withRootDirectory: options.cache)
    )
    // One record per todo: the list, the mutations and the subscriptions share them.
    appSyncConfig.cacheKeyForObject = { $0["id"] }
    appSyncClient = try AWSAppSyncClient(appSyncConfig: appSyncConfig)
} catch {
    fail("Cannot start the client with \(options.config.path): \(error)", status: 1)
}
let handlers = DispatchQueue(label: "todo-appsync")

// Printed again whenever a todo it shows changes in the cache, whoever wrote it.
let watcher = appSyncClient.watch(
    query: ListTodosQuery(),
    cachePolicy: .returnCacheDataAndFetch,
    queue: handlers,
    resultHandler: show
)

/// Reports the subscriptions' connection; once all of them are connected, first or again after
/// a drop, fetches the list again for what was added, changed or removed before they listened,
/// which no event brought.
final class Connection: Sendable {
    private let state = Mutex((dropped: false, listening: false, connected: Set<Int>()))
    private let count: Int
    private let reconnected: @Sendable () -> Void

    init(subscriptions count: Int, reconnected: @escaping @Sendable () -> Void) {
        self.count = count
        self.reconnected = reconnected
    }

    /// The status handler of the subscription `index`.
    func statusHandler(_ index: Int) -> @Sendable (AWSAppSyncSubscriptionWatcherStatus) -> Void {
        { [self] status in
            switch status {
            case .disconnected:
                let first = state.withLock { state in
                    state.connected.remove(index)
                    defer { state.dropped = true }
                    return !state.dropped
                }
                if first { print("[offline: additions wait in the queue]") }
            case .connected:
                let (first, back) = state.withLock { state in
                    state.connected.insert(index)
                    let allListen = state.connected.count == count
                    guard allListen, state.dropped || !state.listening else { return (false, false) }
                    defer { (state.dropped, state.listening) = (false, true) }
                    return (!state.listening, state.dropped)
                }
                if back { print("[online]") }
                if first || back { reconnected() }
            case .error(let error): print("subscription: \(error)")
            case .connecting: break
            }
        }
    }
}
let connection = Connection(subscriptions: 3) { watcher.refetch() }

let subscriptions: [any Cancellable]
do {
    subscriptions = [
        try appSyncClient.subscribe(
            subscription: OnCreateTodoSubscription(),
            queue: handlers,
            statusChangeHandler: connection.statusHandler(0)
        ) { result, transaction, error in
            guard let todo = result?.data?.onCreateTodo else {
                if let error { print("subscription: \(error)") }
                return
            }
            do {
                // The event selects the list item's fields: its snapshot is one.
                try append(ListTodosQuery.Data.ListTodo.Item(snapshot: todo.snapshot), to: transaction)
            } catch {
                print("Cannot add \(todo.name) to the cached list: \(error)")
            }
        },
        // Updates and deletions (a tombstone, `_deleted`) change the todo's record, which the
        // list refers to: the client writes them to the cache, nothing else to do.
        try appSyncClient.subscribe(
            subscription: OnUpdateTodoSubscription(),
            queue: handlers,
            statusChangeHandler: connection.statusHandler(1)
        ) { _, _, error in if let error { print("subscription: \(error)") } },
        try appSyncClient.subscribe(
            subscription: OnDeleteTodoSubscription(),
            queue: handlers,
            statusChangeHandler: connection.statusHandler(2)
        ) { _, _, error in if let error { print("subscription: \(error)") } },
    ]
} catch {
    fail("Cannot subscribe: \(error)", status: 1)
}

Task {
    for await replayed in appSyncClient.offlineMutationResults {
        print("sent after a restart: \(replayed.operationName) \(replayed.error.map { "\($0)" } ?? "done")")
    }
}

print(Options.commands)
for await line in inputLines() {
    let words = line.split(separator: " ", maxSplits: 1).map(String.init)
    switch words.first {
    case "add" where words.count == 2:
        let now = Date()
        let timestamp = now.formatted(.iso8601)
        // Shown at once; once the server accepts it, its answer is written over it (and it
        // stays in the list whether or not this client's own subscription brings it back).
        let item = ListTodosQuery.Data.ListTodo.Item(
            id: UUID().uuidString,
            createdAt: timestamp,
            name: words[1],
            updatedAt: timestamp,
            version: 1,
            lastChangedAt: Int(now.timeIntervalSince1970 * 1000)
        )
        appSyncClient.perform(
            mutation: CreateTodoMutation(input: CreateTodoInput(id: item.id, name: item.name)),
            queue: handlers,
            optimisticUpdate: { transaction in
                do {
                    try append(item, to: transaction)
                } catch {
                    print("Cannot show \(item.name) before the server has it: \(error)")
                }
            },
            resultHandler: { result, error in
                if let error { print("add \(item.name): \(error)") }
                if let errors = result?.errors { print("add \(item.name): \(errors.map(\.message))") }
            }
        )
    case "list":
        appSyncClient.fetch(
            query: ListTodosQuery(),
            cachePolicy: .returnCacheDataDontFetch,
            queue: handlers,
            resultHandler: show
        )
    case "refresh":
        appSyncClient.fetch(
            query: ListTodosQuery(),
            cachePolicy: .fetchIgnoringCacheData,
            queue: handlers,
            resultHandler: show
        )
    case "quit":
        watcher.cancel()
        for subscription in subscriptions { subscription.cancel() }
        exit(0)
    default:
        print(Options.commands)
    }
}
