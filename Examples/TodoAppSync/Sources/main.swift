// A terminal todo list on the AppSync client: the list is watched in the normalized cache,
// additions go through the offline queue with an optimistic update, and a subscription brings
// what other clients add. Start the backend, then run this in two terminals with different
// caches: what one adds shows up in the other, and what is added while the backend is down is
// sent when it is back.
//
//     swift run stratus serve --schema Examples/Todo/schema.graphql
//     swift run todo-appsync --cache /tmp/appsync-a
//     swift run todo-appsync --cache /tmp/appsync-b
//
// Commands: `add <name>`, `list` (from the cache), `refresh` (from the server), `quit`.
//
// `API.swift` is generated from the schema:
//
//     swift run stratus codegen types --schema Examples/Todo/schema.graphql \
//         --output Examples/TodoAppSync/Sources/API.swift
import AWSAppSync
import Foundation

/// The command line: `--config` (default `awsconfiguration.json`, which `stratus serve` writes)
/// and `--cache` (the directory of this client's three databases).
struct Options {
    var config = URL(fileURLWithPath: "awsconfiguration.json")
    var cache = URL(fileURLWithPath: ".todo-appsync")

    init(_ arguments: [String]) throws {
        var iterator = arguments.makeIterator()
        while let argument = iterator.next() {
            guard let value = iterator.next() else { throw UsageError(argument: argument) }
            switch argument {
            case "--config": config = URL(fileURLWithPath: value)
            case "--cache": cache = URL(fileURLWithPath: value, isDirectory: true)
            default: throw UsageError(argument: argument)
            }
        }
    }
}

struct UsageError: Error, CustomStringConvertible {
    let argument: String
    var description: String {
        "Unknown or incomplete option '\(argument)'. Usage: todo-appsync [--config awsconfiguration.json] "
            + "[--cache .todo-appsync]"
    }
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
    let items = (result?.data?.listTodos?.items ?? []).compactMap { $0 }
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

let options = try Options(Array(CommandLine.arguments.dropFirst()))
var appSyncConfig = try AWSAppSyncClientConfiguration(
    appSyncServiceConfig: AWSAppSyncServiceConfig(configurationFile: options.config),
    cacheConfiguration: AWSAppSyncCacheConfiguration(withRootDirectory: options.cache)
)
// One record per todo: the list, the mutations and the subscription share them.
appSyncConfig.cacheKeyForObject = { $0["id"] }
let appSyncClient = try AWSAppSyncClient(appSyncConfig: appSyncConfig)
let handlers = DispatchQueue(label: "todo-appsync")

// Printed again whenever a todo it shows changes in the cache, whoever wrote it.
let watcher = appSyncClient.watch(
    query: ListTodosQuery(),
    cachePolicy: .returnCacheDataAndFetch,
    queue: handlers,
    resultHandler: show
)

let subscription = try appSyncClient.subscribe(
    subscription: OnCreateTodoSubscription(),
    queue: handlers,
    statusChangeHandler: { status in print("subscription: \(status)") }
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
}

Task {
    for await replayed in appSyncClient.offlineMutationResults {
        print("sent after a restart: \(replayed.operationName) \(replayed.error.map { "\($0)" } ?? "done")")
    }
}

print("Commands: add <name>, list, refresh, quit")
for await line in inputLines() {
    let words = line.split(separator: " ", maxSplits: 1).map(String.init)
    switch words.first {
    case "add" where words.count == 2:
        let now = Date()
        let timestamp = now.formatted(.iso8601)
        // Shown at once, in place of the server's answer, which replaces it.
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
        subscription.cancel()
        exit(0)
    default:
        print("Commands: add <name>, list, refresh, quit")
    }
}
