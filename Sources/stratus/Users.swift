import ArgumentParser
import Foundation
import StratusCognito
import StratusServer

/// `stratus users`: the local Cognito's users, managed in the data directory (or the PostgreSQL
/// database) whether `serve` is running or not.
struct Users: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Manage the users of the local Cognito user pool that `stratus serve --auth` runs.",
        subcommands: [Add.self, List.self, Confirm.self, Delete.self, Groups.self]
    )

    /// Where the pool lives and how it is configured.
    struct Location: ParsableArguments {
        @Option(name: .long, help: "The data directory of `stratus serve`.")
        var dataDir: String = ".stratus"

        @Option(name: .long, help: "The PostgreSQL database of `stratus serve --database`, instead of --data-dir.")
        var database: String?

        @Option(name: .long, help: "The JSON file whose \"auth\" block configures the pool (as given to serve).")
        var config: String?

        /// Where the pool is, for people: `'.stratus'` or `the database postgres://…`.
        var place: String { database.map { "the database \($0)" } ?? "'\(dataDir)'" }

        /// The pool in the data directory, or in the database; `creating` makes a data
        /// directory's pool when it has none, and says so.
        ///
        /// - Throws: ``CommandFailure`` when the data directory has no pool and `creating` is
        ///   `false`: a command run in another directory than the server's finds nothing there.
        func open(creating: Bool = false) async throws -> CognitoUserPool {
            let settings = try ServeSettings.load(path: config)
            guard let configuration = settings.cognitoConfiguration(enabled: true) else {
                preconditionFailure("cognitoConfiguration(enabled: true) always gives a configuration.")
            }
            let location = try settings.databaseLocation(override: database)
            let place = location.map { "the database \($0)" } ?? "'\(dataDir)'"
            let poolFile = URL(fileURLWithPath: dataDir, isDirectory: true).appending(path: "cognito.sqlite")
            let isNew = location == nil && !FileManager.default.fileExists(atPath: poolFile.path)
            if isNew && !creating {
                throw CommandFailure(
                    "There is no user pool in '\(dataDir)' (no \(poolFile.path)). Pass --data-dir with the data "
                        + "directory of `stratus serve --auth`; `stratus serve --auth --data-dir \(dataDir)` or "
                        + "`stratus users add` creates the pool \(configuration.userPoolId) there."
                )
            }
            do {
                let store: any CognitoStore
                if let location {
                    store = try await CognitoUserPool.store(in: location)
                } else {
                    store = try CognitoUserPool.store(in: URL(fileURLWithPath: dataDir, isDirectory: true))
                }
                let pool = try await CognitoUserPool(configuration: configuration, store: store, log: { print($0) })
                if isNew {
                    print(
                        "Created the user pool \(configuration.userPoolId) in '\(dataDir)'; "
                            + "`stratus serve --auth --data-dir \(dataDir)` serves it."
                    )
                }
                return pool
            } catch {
                throw CommandFailure("Cannot open the user pool in \(place): \(error)")
            }
        }
    }

    struct Add: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Add a confirmed user with a permanent password.")

        @OptionGroup var location: Location
        @Argument(help: "The username.") var username: String
        @Option(name: .long, help: "The password; it must meet the pool's password policy.") var password: String
        @Option(name: .long, help: "An attribute as name=value, such as email=alice@example.com (repeatable).")
        var attribute: [String] = []
        @Option(name: .long, help: "A group of the pool to put the user in (repeatable).") var group: [String] = []

        func run() async throws {
            var attributes: [String: String] = [:]
            for pair in attribute {
                guard let equals = pair.firstIndex(of: "="), equals != pair.startIndex else {
                    throw CommandFailure(
                        "--attribute '\(pair)' is not name=value. Write it as email=alice@example.com."
                    )
                }
                attributes[String(pair[..<equals])] = String(pair[pair.index(after: equals)...])
            }
            let pool = try await location.open(creating: true)
            try await createMissingGroups(group, in: pool)
            try await failing {
                try await pool.addUser(username: username, password: password, attributes: attributes, groups: group)
            }
            let groups = group.joined(separator: ", ")
            print(group.isEmpty ? "Added \(username)." : "Added \(username) to \(groups).")
        }
    }

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List the users, their status and groups.")

        @OptionGroup var location: Location

        func run() async throws {
            let pool = try await location.open()
            let users = try await failing { try await pool.listUsers() }
            guard !users.isEmpty else {
                print(
                    "The user pool \(pool.configuration.userPoolId) in \(location.place) has no users. Add one with: "
                        + "stratus users add <username> --password <password>"
                )
                return
            }
            for user in users {
                let groups = user.groups.isEmpty ? "" : " groups=\(user.groups.joined(separator: ","))"
                let email = user.attributes["email"].map { " email=\($0)" } ?? ""
                print("\(user.username)\t\(user.status)\tsub=\(user.sub)\(email)\(groups)")
            }
        }
    }

    struct Confirm: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Confirm a user who signed up, without the code.")

        @OptionGroup var location: Location
        @Argument(help: "The username.") var username: String

        func run() async throws {
            let pool = try await location.open()
            try await failing { try await pool.confirmUser(username) }
            print("Confirmed \(username).")
        }
    }

    struct Delete: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Delete a user; its tokens stop working.")

        @OptionGroup var location: Location
        @Argument(help: "The username.") var username: String

        func run() async throws {
            let pool = try await location.open()
            try await failing { try await pool.deleteUser(username) }
            print("Deleted \(username).")
        }
    }

    struct Groups: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Show a user's groups, or add and remove them with --add and --remove."
        )

        @OptionGroup var location: Location
        @Argument(help: "The username.") var username: String
        @Option(name: .long, help: "A group to add the user to (repeatable).") var add: [String] = []
        @Option(name: .long, help: "A group to remove the user from (repeatable).") var remove: [String] = []

        func run() async throws {
            let pool = try await location.open()
            try await createMissingGroups(add, in: pool)
            for group in add { try await failing { try await pool.setGroup(group, of: username, member: true) } }
            for group in remove { try await failing { try await pool.setGroup(group, of: username, member: false) } }
            guard let user = try await failing({ try await pool.listUsers() }).first(where: { $0.username == username })
            else {
                throw CommandFailure("There is no user '\(username)'. See them with: stratus users list")
            }
            print(user.groups.isEmpty ? "\(username) is in no group." : user.groups.joined(separator: "\n"))
        }
    }
}

/// Creates the groups of `names` the pool lacks, saying so: a user is put in a group by name, as
/// `@auth` rules name it, whether or not the pool had it.
private func createMissingGroups(_ names: [String], in pool: CognitoUserPool) async throws {
    for name in names where try await failing({ try await pool.createGroupIfMissing(name) }) {
        print("Created the group \(name).")
    }
}

/// The value of `body`, a pool's refusal becoming the command's failure message.
private func failing<T>(_ body: () async throws -> T) async throws -> T {
    do {
        return try await body()
    } catch let error as ServerError {
        throw CommandFailure(error.description)
    }
}
