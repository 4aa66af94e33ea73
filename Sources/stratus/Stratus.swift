import ArgumentParser

@main
struct Stratus: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "stratus",
        abstract: "Offline-first data layer tools: code generation and a local AppSync-compatible backend.",
        subcommands: [Codegen.self, Serve.self, Users.self]
    )
}
