// A terminal todo list that syncs through `stratus serve`. Start the backend, then run this in
// two terminals with different databases: what one adds, completes or removes shows up in the
// other.
//
//     swift run stratus serve --schema Examples/Todo/schema.graphql
//     swift run todo-sync --database /tmp/device-a.sqlite
//     swift run todo-sync --database /tmp/device-b.sqlite
//
// Commands: `add <name>`, `done <number>` (marks it done in its description), `rm <number>`,
// `list`, `quit`; `todo-sync --help` prints them with the options.
import AWSAPIPlugin
import AWSDataStorePlugin
import Amplify
import Foundation

/// The command line: `--config` (default `amplifyconfiguration.json`, which `stratus serve`
/// writes) and `--database` (this device's store).
struct Options {
    var config = URL(fileURLWithPath: "amplifyconfiguration.json")
    var database = URL(fileURLWithPath: "todo-sync.sqlite")
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
            case "--database": database = URL(fileURLWithPath: value)
            default: throw UsageError(argument: argument)
            }
        }
    }

    static let usage = """
        Usage: todo-sync [--config amplifyconfiguration.json] [--database todo-sync.sqlite]

        A terminal todo list that syncs through `stratus serve`. Start the backend first, in this
        directory:
            swift run stratus serve --schema Examples/Todo/schema.graphql
        which writes amplifyconfiguration.json here.

        \(commands)
        """

    static let commands = "Commands: add <name>, done <number>, rm <number>, list, quit"
}

struct UsageError: Error, CustomStringConvertible {
    let argument: String
    var description: String {
        "Unknown or incomplete option '\(argument)'. Run todo-sync --help for the options."
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
var configuration = DataStoreConfiguration(databaseURL: options.database)
configuration.errorHandler = { error in print("sync error: \(error.message)") }
do {
    try Amplify.add(plugin: AWSAPIPlugin(modelRegistration: AmplifyModels()))
    try Amplify.add(plugin: AWSDataStorePlugin(modelRegistration: AmplifyModels(), configuration: configuration))
    try Amplify.configure(with: options.config)
} catch {
    fail("Cannot configure Amplify with \(options.config.path): \(error)", status: 1)
}

Amplify.Hub.listen(to: .dataStore) { payload in
    switch payload.eventName {
    case HubPayload.EventName.DataStore.networkStatus:
        let active = (payload.data as? NetworkStatusEvent)?.active == true
        print(active ? "[online]" : "[offline: changes wait in the outbox]")
    case HubPayload.EventName.DataStore.ready:
        print("[synced]")
    default:
        break
    }
}

/// The todos as last shown, numbered from 1.
actor Screen {
    var todos: [Todo] = []

    func show(_ items: [Todo], always: Bool = false) {
        // A change comes back once more when the backend answers it: show only what differs.
        guard always || items != todos || items.isEmpty else { return }
        todos = items
        print("\n--- todos ---")
        for (index, todo) in items.enumerated() {
            print("\(index + 1). [\(todo.description == "done" ? "x" : " ")] \(todo.name)")
        }
        if items.isEmpty { print("(none: type `add <name>`)") }
    }

    func todo(_ number: String) -> Todo? {
        guard let index = Int(number), todos.indices.contains(index - 1) else { return nil }
        return todos[index - 1]
    }
}

let screen = Screen()
do {
    try await Amplify.DataStore.start()
} catch {
    fail("Cannot start DataStore on \(options.database.path): \(error)", status: 1)
}
print(Options.commands)
let observation = Task {
    for try await snapshot in Amplify.DataStore.observeQuery(
        for: Todo.self,
        where: nil,
        sort: .ascending(Todo.keys.createdAt)
    ) {
        await screen.show(snapshot.items)
    }
}

for await line in inputLines() {
    let parts = line.split(separator: " ", maxSplits: 1).map(String.init)
    do {
        switch parts.first {
        case "add" where parts.count == 2:
            try await Amplify.DataStore.save(Todo(name: parts[1], createdAt: .now()))
        case "done" where parts.count == 2:
            if var todo = await screen.todo(parts[1]) {
                todo.description = "done"
                try await Amplify.DataStore.save(todo)
            } else {
                print("No todo number \(parts[1]).")
            }
        case "rm" where parts.count == 2:
            if let todo = await screen.todo(parts[1]) {
                try await Amplify.DataStore.delete(todo)
            } else {
                print("No todo number \(parts[1]).")
            }
        case "list":
            await screen.show(try await Amplify.DataStore.query(Todo.self), always: true)
        case "quit":
            observation.cancel()
            try await Amplify.DataStore.stop()
            exit(0)
        default:
            print(Options.commands)
        }
    } catch {
        // A store error ends the command, not the program.
        print("\(line): \(error)")
    }
}
do {
    try await Amplify.DataStore.stop()
} catch {
    fail("Cannot stop DataStore: \(error)", status: 1)
}
