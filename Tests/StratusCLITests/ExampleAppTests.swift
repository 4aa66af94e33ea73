import Foundation
import Testing

/// The example apps of Examples/ as a newcomer first runs them: `--help`, a mistyped option,
/// and no backend started yet.
@Suite struct ExampleAppTests {
    struct App: Sendable, CustomTestStringConvertible {
        let name: String
        let configFile: String
        let options: String
        let commands: String
        let description: String

        var testDescription: String { name }
    }

    static let apps = [
        App(
            name: "todo-appsync",
            configFile: "awsconfiguration.json",
            options: "[--config awsconfiguration.json] [--cache .todo-appsync]",
            commands: "Commands: add <name>, list (from the cache), refresh (from the server), quit",
            description: "A terminal todo list over `stratus serve`. Start the backend first, in this directory:"
        ),
        App(
            name: "todo-sync",
            configFile: "amplifyconfiguration.json",
            options: "[--config amplifyconfiguration.json] [--database todo-sync.sqlite]",
            commands: "Commands: add <name>, done <number>, rm <number>, list, quit",
            description: "A terminal todo list that syncs through `stratus serve`. Start the backend first, in this\n"
                + "directory:"
        ),
    ]

    /// Runs `app arguments` in `directory` and returns its exit status, standard output and error.
    func run(
        _ app: App,
        _ arguments: [String],
        in directory: TemporaryDirectory
    ) async throws -> (Int32, String, String) {
        let process = try await StratusProcess(arguments, in: directory.url, executable: app.name)
        let status = try await process.exitStatus()
        return (status, process.standardOutput, process.standardError)
    }

    @Test(arguments: apps) func helpPrintsTheOptionsAndTheCommands(app: App) async throws {
        let directory = try TemporaryDirectory()
        let (status, output, errors) = try await run(app, ["--help"], in: directory)
        #expect(status == 0)
        #expect(errors == "")
        #expect(
            output == """
                Usage: \(app.name) \(app.options)

                \(app.description)
                    swift run stratus serve --schema Examples/Todo/schema.graphql
                which writes \(app.configFile) here.

                \(app.commands)

                """
        )
    }

    @Test(arguments: apps) func aMistypedOptionPointsAtHelp(app: App) async throws {
        let directory = try TemporaryDirectory()
        let (status, output, errors) = try await run(app, ["--confg", "x.json"], in: directory)
        #expect(status == 64)
        #expect(output == "")
        #expect(errors == "Unknown or incomplete option '--confg'. Run \(app.name) --help for the options.\n")
    }

    @Test(arguments: apps) func aMissingConfigurationFileNamesItAndTheCommandThatWritesIt(app: App) async throws {
        let directory = try TemporaryDirectory()
        let (status, output, errors) = try await run(app, [], in: directory)
        let path = directory.url.resolvingSymlinksInPath().appending(path: app.configFile).path
        #expect(status == 1)
        #expect(output == "")
        #expect(
            errors == "No \(app.configFile) at \(path). Start the backend in this directory with "
                + "`swift run stratus serve --schema Examples/Todo/schema.graphql`, which writes it, "
                + "or pass --config with the file it wrote.\n"
        )
    }
}
