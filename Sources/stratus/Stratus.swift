import ArgumentParser

@main
struct Stratus: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "stratus",
        abstract:
            "Offline-first data layer tools: code generation, a local AppSync-compatible backend, and client queues.",
        subcommands: [Codegen.self, Serve.self, Users.self, Queue.self, Inspect.self]
    )
}
