import Foundation
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// `stratus serve` run as a process: what it prints, the files it writes, the API it answers,
/// and how it refuses what it cannot do.
@Suite struct ServeCommandTests {
    static let todoSchema = URL(filePath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appending(path: "Examples/Todo/schema.graphql")

    static let noteSchema = """
        type Note @model {
          id: ID!
          text: String!
        }
        """

    /// A `stratus serve` that printed where it listens.
    struct Serving {
        let process: StratusProcess
        let endpoint: URL
        let port: Int
        let apiKey: String

        /// Starts `stratus serve arguments --port 0 …` in `directory` and waits until it listens.
        init(_ arguments: [String], in directory: TemporaryDirectory) async throws {
            process = try await StratusProcess(["serve", "--port", "0"] + arguments, in: directory.url)
            let line = try await process.line(startingWith: "GraphQL endpoint: ")
            endpoint = try #require(URL(string: String(line.dropFirst("GraphQL endpoint: ".count))))
            port = try #require(endpoint.port)
            try await process.line(startingWith: "Wrote amplifyconfiguration.json")
            apiKey = String(try await process.line(startingWith: "API key: ").dropFirst("API key: ".count))
        }

        /// Runs a GraphQL request with the API key.
        func graphQL(_ query: String) async throws -> String {
            let body = String(decoding: try JSONSerialization.data(withJSONObject: ["query": query]), as: UTF8.self)
            let exchange = try await HTTPExchange(endpoint, post: body, headers: ["x-api-key": apiKey])
            #expect(exchange.status == 200)
            return exchange.body
        }
    }

    // MARK: - Serving

    @Test func listeningBeyondLoopbackTheMetricsNeedThePrintedToken() async throws {
        let directory = try TemporaryDirectory()
        let serving = try await Serving(
            [
                "--schema", Self.todoSchema.path, "--data-dir", directory.path("data"), "--config-output",
                directory.url.path, "--host", "0.0.0.0",
            ],
            in: directory
        )
        let prefix = "Metrics token (Authorization: Bearer): "
        let token = String(try await serving.process.line(startingWith: prefix).dropFirst(prefix.count))
        #expect(token.wholeMatch(of: /[0-9a-f]{64}/) != nil)
        let metrics = try #require(URL(string: "http://127.0.0.1:\(serving.port)/metrics"))
        #expect(try await HTTPExchange(metrics).status == 401)
        let scraped = try await HTTPExchange(metrics, headers: ["Authorization": "Bearer \(token)"])
        #expect(scraped.status == 200)
        #expect(scraped.body.contains("# TYPE stratus_active_connections gauge"))
        await serving.process.stop()
    }

    @Test func servePrintsItsEndpointsWritesClientFilesAndKeepsKeyAndData() async throws {
        let directory = try TemporaryDirectory()
        let arguments = [
            "--schema", Self.todoSchema.path, "--data-dir", directory.path("data"), "--config-output",
            directory.url.path,
        ]
        let first = try await Serving(arguments, in: directory)
        let port = first.port
        #expect(first.apiKey.wholeMatch(of: /da2-[a-z0-9]{26}/) != nil)
        // The console's admin secret, made on first use and kept beside the data.
        let secret = try String(contentsOfFile: directory.path("data/console-secret"), encoding: .utf8)
        #expect(secret.wholeMatch(of: /[0-9a-f]{64}/) != nil)
        #expect(
            first.process.outputLines == [
                "GraphQL endpoint: http://127.0.0.1:\(port)/graphql",
                "Real-time endpoint: ws://127.0.0.1:\(port)/graphql/realtime",
                "API key: \(first.apiKey)",
                "Metrics (Prometheus): http://127.0.0.1:\(port)/metrics",
                "Console: http://127.0.0.1:\(port)/console?secret=\(secret)",
                "Data: \(directory.path("data"))",
                "Wrote amplifyconfiguration.json, amplify_outputs.json and awsconfiguration.json to \(directory.url.path)",
                "",
                "Next steps:",
                "  Query it:  curl -s http://127.0.0.1:\(port)/graphql -H 'x-api-key: \(first.apiKey)' "
                    + #"-H 'content-type: application/json' -d '{"query":"{ listTodos { items { id } } }"}'"#,
                "  Operations: stratus codegen statements --schema \(Self.todoSchema.path) --output graphql writes "
                    + "every query, mutation and subscription (listTodos, createTodo, …).",
                "  Conflict detection is on: updates and deletes send the item's current _version (select _version "
                    + #"when you read it). "conflictDetection": false in the --config file turns it off, "#
                    + #""models": {"Todo": {"conflictDetection": false}} for one model."#,
            ]
        )
        #expect(first.process.standardError == "")

        // A browser opening the server or its endpoint reads what they are.
        let root = try await HTTPExchange(URL(string: "http://127.0.0.1:\(port)/")!)
        #expect(root.status == 200)
        #expect(
            root.body
                == """
                Stratus: a local AppSync-compatible backend.

                GraphQL endpoint: http://127.0.0.1:\(port)/graphql (POST a JSON body {"query": ...} with the \
                x-api-key header)
                Real-time endpoint: ws://127.0.0.1:\(port)/graphql/realtime
                Health: http://127.0.0.1:\(port)/health

                Clients read amplifyconfiguration.json, amplify_outputs.json and awsconfiguration.json, which `stratus serve` writes into \
                its working directory (or --config-output), with the endpoint and the API key.

                """
        )
        let page = try await HTTPExchange(first.endpoint, headers: ["Accept": "text/html,application/xhtml+xml"])
        #expect(page.status == 200)
        #expect(
            page.body
                == """
                This is the GraphQL endpoint of a local AppSync-compatible backend.

                Send a query as AppSync takes it, with the API key `stratus serve` printed:
                  curl http://127.0.0.1:\(port)/graphql -H 'x-api-key: <API key>' -H 'content-type: application/json' \
                -d '{"query": "{ __typename }"}'
                or as a GET: http://127.0.0.1:\(port)/graphql?query=%7B__typename%7D with the x-api-key header.
                Subscriptions connect to ws://127.0.0.1:\(port)/graphql/realtime.

                """
        )

        let amplify = try String(
            contentsOf: directory.url.appending(path: "amplifyconfiguration.json"),
            encoding: .utf8
        )
        #expect(
            amplify
                == #"{"UserAgent":"stratus/1.0","Version":"1.0","api":{"plugins":{"awsAPIPlugin":{"stratus":{"#
                + #""endpointType":"GraphQL","endpoint":"http://127.0.0.1:\#(port)/graphql","region":"us-east-1","#
                + #""authorizationType":"API_KEY","apiKey":"\#(first.apiKey)"}}}}}"#
        )
        let aws = try String(contentsOf: directory.url.appending(path: "awsconfiguration.json"), encoding: .utf8)
        #expect(
            aws
                == #"{"Version":"1.0","AppSync":{"Default":{"ApiUrl":"http://127.0.0.1:\#(port)/graphql","#
                + #""Region":"us-east-1","AuthMode":"API_KEY","ApiKey":"\#(first.apiKey)","#
                + #""ClientDatabasePrefix":"stratus_API_KEY"}}}"#
        )

        #expect(
            try await first.graphQL(
                #"mutation { createTodo(input: {id: "t1", name: "Milk"}) { id name description } }"#
            )
                == #"{"data":{"createTodo":{"id":"t1","name":"Milk","description":null}}}"#
        )
        let unauthorized = try await HTTPExchange(first.endpoint, post: #"{"query":"{ listTodos { items { id } } }"}"#)
        #expect(unauthorized.status == 401)
        #expect(
            unauthorized.body
                == #"{"errors":[{"errorType":"UnauthorizedException","message":"Valid authorization header not provided."}]}"#
        )
        let wrongKey = try await HTTPExchange(
            first.endpoint,
            post: #"{"query":"{ listTodos { items { id } } }"}"#,
            headers: ["x-api-key": "da2-wrong"]
        )
        #expect(wrongKey.status == 401)
        #expect(
            wrongKey.body
                == #"{"errors":[{"errorType":"UnauthorizedException","message":"You are not authorized to make this call."}]}"#
        )
        // SIGTERM stops it gracefully: it closes the store and says where the data stays.
        await first.process.stop()
        #expect(try await first.process.exitStatus() == 0)
        #expect(first.process.outputLines.last == "Stopped. The data stays in \(directory.path("data")).")
        #expect(first.process.standardError == "")

        // The same data directory again: the same key, console secret and item.
        let second = try await Serving(arguments, in: directory)
        #expect(second.apiKey == first.apiKey)
        #expect(
            try await second.process.line(startingWith: "Console: ")
                == "Console: http://127.0.0.1:\(second.port)/console?secret=\(secret)"
        )
        #expect(
            try await second.graphQL(#"{ getTodo(id: "t1") { id name _version } }"#)
                == #"{"data":{"getTodo":{"id":"t1","name":"Milk","_version":1}}}"#
        )
        await second.process.stop()
    }

    @Test func aRESTAPIFromTheConfigurationIsServed() async throws {
        let directory = try TemporaryDirectory()
        let config = try directory.write(
            #"{"rest": [{"name": "items", "routes": [{"path": "/items/{proxy+}", "methods": ["ANY"], "handler": "echo"}]}]}"#,
            to: "stratus.json"
        )
        let schema = try directory.write(Self.noteSchema, to: "schema.graphql")
        let serving = try await Serving(["--schema", schema.path, "--config", config.path], in: directory)
        let port = serving.port
        #expect(serving.process.outputLines.contains("REST API items: http://127.0.0.1:\(port)/rest/items"))
        let get = try await HTTPExchange(URL(string: "http://127.0.0.1:\(port)/rest/items/items/42?limit=5")!)
        #expect(get.status == 200)
        #expect(get.body == #"{"success":"get call succeed!","url":"/items/42?limit=5"}"#)
        // Relative paths are the working directory's: the data and the client files land there.
        #expect(serving.process.outputLines.contains("Data: \(directory.path(".stratus"))"))
        let amplify = try String(
            contentsOf: directory.url.appending(path: "amplifyconfiguration.json"),
            encoding: .utf8
        )
        #expect(amplify.contains(#""items":{"endpointType":"REST","endpoint":"http://127.0.0.1:\#(port)/rest/items""#))
        await serving.process.stop()
    }

    @Test func aConflictHandlerCommandDecidesConflicts() async throws {
        let directory = try TemporaryDirectory()
        try directory.write(
            """
            import json, sys
            payload = json.load(sys.stdin)
            item = payload["existingItem"]
            item["text"] = payload["newItem"]["text"] + "+" + item["text"]
            print(json.dumps({"action": "RESOLVE", "resolvedItem": item}))
            """,
            to: "resolve.py"
        )
        let config = try directory.write(
            #"{"conflictHandler": {"command": ["python3", "resolve.py"]}}"#,
            to: "stratus.json"
        )
        let schema = try directory.write(Self.noteSchema, to: "schema.graphql")
        let serving = try await Serving(["--schema", schema.path, "--config", config.path], in: directory)
        _ = try await serving.graphQL(#"mutation { createNote(input: {id: "n1", text: "A"}) { id } }"#)
        _ = try await serving.graphQL(#"mutation { updateNote(input: {id: "n1", text: "B", _version: 1}) { id } }"#)
        #expect(
            try await serving.graphQL(
                #"mutation { updateNote(input: {id: "n1", text: "C", _version: 1}) { id text _version } }"#
            ) == #"{"data":{"updateNote":{"id":"n1","text":"C+B","_version":3}}}"#
        )
        await serving.process.stop()
    }

    @Test func theDeltaJournalIsReadForTheConfiguredTime() async throws {
        let directory = try TemporaryDirectory()
        let config = try directory.write(#"{"deltaSyncTTLSeconds": 5}"#, to: "stratus.json")
        let schema = try directory.write(Self.noteSchema, to: "schema.graphql")
        let serving = try await Serving(["--schema", schema.path, "--config", config.path], in: directory)
        func sync(_ lastSync: Int?) async throws -> (ids: Set<String>, startedAt: Int) {
            let argument = lastSync.map { "(lastSync: \($0))" } ?? ""
            let body = try await serving.graphQL("query { syncNotes\(argument) { items { id } startedAt } }")
            let page = try #require(
                (try JSONSerialization.jsonObject(with: Data(body.utf8)) as? [String: Any])
                    .flatMap { $0["data"] as? [String: Any] }?["syncNotes"] as? [String: Any],
                "\(body)"
            )
            let items = try #require(page["items"] as? [[String: Any]])
            return (Set(items.compactMap { $0["id"] as? String }), try #require(page["startedAt"] as? Int))
        }
        _ = try await serving.graphQL(#"mutation { createNote(input: {id: "n1", text: "A"}) { id } }"#)
        let lastSync = try await sync(nil).startedAt
        _ = try await serving.graphQL(#"mutation { createNote(input: {id: "n2", text: "B"}) { id } }"#)
        // Within the 5 seconds the journal answers with the change since lastSync only; after
        // them, a base scan answers with every note.
        #expect(try await sync(lastSync).ids == ["n2"])
        try await Task.sleep(for: .milliseconds(5_500))
        #expect(try await sync(lastSync).ids == ["n1", "n2"])
        await serving.process.stop()
    }

    @Test func handWrittenFieldsAnswerFromTheConfiguredFunctionsAndDataSources() async throws {
        let directory = try TemporaryDirectory()
        try FileManager.default.createDirectory(
            at: directory.url.appending(path: "echo"),
            withIntermediateDirectories: true
        )
        try directory.write(
            """
            import json, os, sys
            event = json.load(sys.stdin)
            print(json.dumps(event["arguments"]["text"] + " from " + os.environ["ENV"] + " in " + os.environ["AWS_REGION"]))
            """,
            to: "echo/index.py"
        )
        let config = try directory.write(
            #"""
            {"environment": "dev", "region": "eu-north-1",
             "functions": {"echo-dev": {"command": ["python3", "index.py"], "directory": "echo", "timeoutSeconds": 10}},
             "resolvers": {"Mutation.publish": {"dataSource": "NONE"}}}
            """#,
            to: "stratus.json"
        )
        let schema = try directory.write(
            """
            type Message { channel: String! text: String! }
            type Query {
              echo(text: String!): String @function(name: "echo-${env}")
              hello: String
            }
            type Mutation { publish(channel: String!, text: String!): Message }
            """,
            to: "schema.graphql"
        )
        let serving = try await Serving(["--schema", schema.path, "--config", config.path], in: directory)
        #expect(
            serving.process.outputLines.contains(
                #"No resolver for Query.hello: it answers null, as in AppSync. Attach one in stratus.json: "resolvers": "#
                    + #"{"Query.hello": {"function": "name-dev"}} with "functions": {"name-dev": {"command": ["python3", "#
                    + #""handler.py"]}}, or {"dataSource": "NONE"} for a mutation that returns its arguments."#
            )
        )
        #expect(
            try await serving.graphQL(#"{ echo(text: "hi") hello }"#)
                == #"{"data":{"echo":"hi from dev in eu-north-1","hello":null}}"#
        )
        #expect(
            try await serving.graphQL(#"mutation { publish(channel: "news", text: "hi") { channel text } }"#)
                == #"{"data":{"publish":{"channel":"news","text":"hi"}}}"#
        )
        await serving.process.stop()
    }

    // MARK: - Schema changes

    @Test func schemaChangesMigrateOrAreRefusedKeepingTheData() async throws {
        let directory = try TemporaryDirectory()
        let schema = try directory.write(Self.noteSchema, to: "schema.graphql")
        let data = directory.path("data")
        let arguments = ["--schema", schema.path, "--data-dir", data]

        let original = try await Serving(arguments, in: directory)
        _ = try await original.graphQL(#"mutation { createNote(input: {id: "n1", text: "kept"}) { id } }"#)
        await original.process.stop()

        // An optional field is added in place.
        try directory.write(
            Self.noteSchema.replacingOccurrences(of: "text: String!", with: "text: String!\n  tag: String"),
            to: "schema.graphql"
        )
        let migrated = try await Serving(arguments, in: directory)
        #expect(migrated.process.outputLines.first == "Migrated \(data): added field 'Note.tag' (String)")
        #expect(
            try await migrated.graphQL(#"{ getNote(id: "n1") { id text tag } }"#)
                == #"{"data":{"getNote":{"id":"n1","text":"kept","tag":null}}}"#
        )
        await migrated.process.stop()

        // A removed field is refused, and the database file is left as it was.
        let before = try Self.databaseFiles(in: data)
        #expect(before["stratus.sqlite"] != nil)
        try directory.write("type Note @model {\n  id: ID!\n  tag: String\n}\n", to: "schema.graphql")
        let refused = try await StratusProcess(["serve", "--port", "0"] + arguments, in: directory.url)
        #expect(try await refused.exitStatus() == 1)
        #expect(refused.standardOutput == "")
        #expect(
            refused.standardError
                == "Error: The schema changed in ways the data in '\(data)' cannot follow without losing data:\n"
                + "  - removed field 'Note.text'\n"
                + "Its data is kept. Undo these changes, pass --data-dir with another directory, or run with --reset "
                + "to delete the data directory (every item, tombstone and the sync journal) and start empty.\n"
        )
        #expect(try Self.databaseFiles(in: data) == before)

        // --reset starts empty, keeping the key that running clients hold.
        let reset = try await Serving(arguments + ["--reset"], in: directory)
        #expect(reset.apiKey == original.apiKey)
        #expect(
            reset.process.outputLines.first
                == "Deleted the data in '\(data)'; the API key is kept (--new-api-key makes a new one)."
        )
        #expect(
            try await reset.graphQL("{ listNotes { items { id tag } } }")
                == #"{"data":{"listNotes":{"items":[]}}}"#
        )
        await reset.process.stop()
        // --new-api-key makes a new one.
        let renewed = try await Serving(arguments + ["--reset", "--new-api-key"], in: directory)
        #expect(renewed.apiKey != original.apiKey)
        #expect(renewed.process.outputLines.first == "Deleted the data in '\(data)'.")
        await renewed.process.stop()
    }

    /// The database file and its write-ahead log in a data directory, by name.
    static func databaseFiles(in directory: String) throws -> [String: Data] {
        var files: [String: Data] = [:]
        for name in ["stratus.sqlite", "stratus.sqlite-wal"] {
            let url = URL(filePath: directory).appending(path: name)
            if FileManager.default.fileExists(atPath: url.path) { files[name] = try Data(contentsOf: url) }
        }
        return files
    }

    // MARK: - Failures

    @Test(
        arguments: [
            (
                "type Note @model {\n  id: ID!\n  text: String!\n",
                "Error: schema.graphql:4:1: Expected Name, found <EOF>. Fix the GraphQL syntax at this position.\n"
            ),
            (
                "type Note @model {\n  id: ID!\n  author: Person\n}\n",
                "Error: schema.graphql:3:11: Note.author: the type 'Person' is not declared. Declare it, or use a "
                    + "GraphQL or AWS scalar.\n"
            ),
        ]
    )
    func aBadSchemaIsNamedAndNothingIsCreated(source: String, message: String) async throws {
        let directory = try TemporaryDirectory()
        let schema = try directory.write(source, to: "schema.graphql")
        let process = try await StratusProcess(
            ["serve", "--port", "0", "--schema", schema.path, "--data-dir", directory.path("data")],
            in: directory.url
        )
        #expect(try await process.exitStatus() == 1)
        #expect(process.standardError == message)
        #expect(process.standardOutput == "")
        #expect(!FileManager.default.fileExists(atPath: directory.path("data")))
        #expect(!FileManager.default.fileExists(atPath: directory.path("amplifyconfiguration.json")))
    }

    @Test func eachRequestIsLoggedOnALine() async throws {
        let directory = try TemporaryDirectory()
        let schema = try directory.write(Self.noteSchema, to: "schema.graphql")
        let serving = try await Serving(["--schema", schema.path, "--log-requests"], in: directory)
        _ = try await serving.graphQL(#"mutation Add { createNote(input: {id: "n1", text: "A"}) { id } }"#)
        let refused = try await HTTPExchange(
            serving.endpoint,
            post: #"{"query":"query ListNotes { listNotes { items { id } } }"}"#
        )
        #expect(refused.status == 401)
        let added = try await serving.process.line(startingWith: "POST /graphql mutation Add API_KEY 200 ")
        #expect(added.wholeMatch(of: /POST \/graphql mutation Add API_KEY 200 [0-9]+ms/) != nil)
        // The refusal is visible on the server's side.
        let unauthorized = try await serving.process.line(startingWith: "POST /graphql query ListNotes - 401 ")
        #expect(unauthorized.wholeMatch(of: /POST \/graphql query ListNotes - 401 [0-9]+ms/) != nil)
        await serving.process.stop()
    }

    @Test func requestsAreNotLoggedWhenOutputIsNotATerminal() async throws {
        let directory = try TemporaryDirectory()
        let schema = try directory.write(Self.noteSchema, to: "schema.graphql")
        let serving = try await Serving(["--schema", schema.path], in: directory)
        _ = try await serving.graphQL("{ listNotes { items { id } } }")
        await serving.process.stop()
        #expect(!serving.process.standardOutput.contains("POST /graphql"))
    }

    @Test(
        arguments: [
            (
                ["--schema", "plain.graphql"],
                "The schema at 'plain.graphql' declares no @model type and no Query or Mutation field, so there is "
                    + "no API to serve. Add a model, such as: type Todo @model { id: ID! name: String! }"
            ),
            (
                ["--data-dir", "file/data"],
                "Cannot use the data directory 'file/data': '{dir}/file' is a file, not a directory. Pass --data-dir "
                    + "with a directory you can write to (it is created when missing)."
            ),
            (
                ["--config-output", "missing"],
                "Cannot write amplifyconfiguration.json, amplify_outputs.json and awsconfiguration.json into 'missing': it does not exist. "
                    + "Pass --config-output with an existing directory."
            ),
        ]
    )
    func aPlaceTheServerCannotUseIsNamedBeforeAnythingIsMade(arguments: [String], message: String) async throws {
        let directory = try TemporaryDirectory()
        try directory.write(Self.noteSchema, to: "schema.graphql")
        try directory.write("type Plain { text: String }\n", to: "plain.graphql")
        try directory.write("", to: "file")
        let process = try await StratusProcess(["serve", "--port", "0"] + arguments, in: directory.url)
        #expect(try await process.exitStatus() == 1)
        let resolved = URL(filePath: directory.url.path).standardizedFileURL.path
        #expect(process.standardError == "Error: \(message.replacingOccurrences(of: "{dir}", with: resolved))\n")
        #expect(process.standardOutput == "")
        #expect(!FileManager.default.fileExists(atPath: directory.path(".stratus")))
    }

    /// In a git work tree whose `.gitignore` does not name the client files, which hold the API
    /// key, `serve` offers the command that adds the missing ones; with all of them named, nothing.
    @Test func aGitWorkTreeIsOfferedTheLinesThatKeepTheKeyOutOfGit() async throws {
        let directory = try TemporaryDirectory()
        try FileManager.default.createDirectory(
            at: directory.url.appending(path: ".git"),
            withIntermediateDirectories: true
        )
        let gitignore = directory.url.appending(path: ".gitignore")
        try Data("/.stratus\namplifyconfiguration.json\n".utf8).write(to: gitignore)
        let arguments = ["--schema", Self.todoSchema.path, "--data-dir", directory.path("data")]
        let first = try await Serving(arguments, in: directory)
        #expect(
            try await first.process.line(startingWith: "  Keep the API key")
                == "  Keep the API key out of git (the client files hold it): printf '%s\\n' amplify_outputs.json "
                + "awsconfiguration.json >> \(gitignore.path)"
        )
        await first.process.stop()

        try Data("amplifyconfiguration.json\n/amplify_outputs.json\nawsconfiguration.json\n".utf8).write(to: gitignore)
        let second = try await Serving(arguments, in: directory)
        try await second.process.line(startingWith: "  Conflict detection is on")
        #expect(!second.process.outputLines.contains { $0.hasPrefix("  Keep the API key") })
    }

    @Test func aSubsystemsLevelSilencesItsLines() async throws {
        let directory = try TemporaryDirectory()
        let schema = try directory.write(Self.noteSchema, to: "schema.graphql")
        let serving = try await Serving(
            ["--schema", schema.path, "--log-requests", "--log-level", "info,requests=warning"],
            in: directory
        )
        _ = try await serving.graphQL("{ listNotes { items { id } } }")
        await serving.process.stop()
        // The command's own lines are still written; the requests' are not.
        #expect(serving.process.standardOutput.contains("Wrote amplifyconfiguration.json"))
        #expect(!serving.process.standardOutput.contains("POST /graphql"))
    }

    @Test(
        arguments: [
            (
                "loud",
                "Error: The value 'loud' is invalid for '--log-level <log-level>': 'loud' is not a level. Give one of "
                    + "trace, debug, info, notice, warning, error, critical, for every subsystem or as SUBSYSTEM=LEVEL."
            ),
            (
                "info,graphql=debug",
                "Error: The value 'info,graphql=debug' is invalid for '--log-level <log-level>': 'graphql' is not a "
                    + "subsystem. Give one of serve, server, http, cognito, functions, postgres, journal, requests."
            ),
        ]
    )
    func aWrongLogLevelIsNamed(value: String, message: String) async throws {
        let directory = try TemporaryDirectory()
        let process = try await StratusProcess(["serve", "--port", "0", "--log-level", value], in: directory.url)
        #expect(try await process.exitStatus() == 64)
        #expect(process.standardError.hasPrefix(message + "\n"), "\(process.standardError)")
    }

    @Test func aPortOutOfRangeIsRefused() async throws {
        let directory = try TemporaryDirectory()
        let process = try await StratusProcess(["serve", "--port", "70000"], in: directory.url)
        #expect(try await process.exitStatus() == 64)
        #expect(
            process.standardError.hasPrefix(
                "Error: --port 70000 is not a port. Give 1 to 65535, or 0 to pick a free one.\n"
            )
        )
    }

    @Test func aMissingConfigurationFileIsNamed() async throws {
        let directory = try TemporaryDirectory()
        let schema = try directory.write(Self.noteSchema, to: "schema.graphql")
        let process = try await StratusProcess(
            ["serve", "--port", "0", "--schema", schema.path, "--config", "missing.json"],
            in: directory.url
        )
        #expect(try await process.exitStatus() == 1)
        #expect(
            process.standardError
                == "Error: Cannot read the configuration file 'missing.json'. Pass --config with the path of a JSON file.\n"
        )
    }

    @Test func aMissingSchemaIsNamed() async throws {
        let directory = try TemporaryDirectory()
        let process = try await StratusProcess(["serve", "--port", "0"], in: directory.url)
        #expect(try await process.exitStatus() == 1)
        #expect(
            process.standardError
                == "Error: Cannot read the schema at 'schema.graphql'. Pass --schema with the path of a .graphql file.\n"
        )
        #expect(!FileManager.default.fileExists(atPath: directory.path(".stratus")))
    }

    @Test(
        arguments: [
            (
                ["--database", "postgres://db.example.com/app"],
                "The database URL 'postgres://db.example.com/app' cannot be used: it names no user "
                    + "(postgres://user@host/database). Pass --database postgres://user@host:port/database."
            ),
            (
                ["--database", "postgres://app@db.example.com/app?sslmode=verify-full"],
                "The database URL 'postgres://app@db.example.com/app?sslmode=verify-full' cannot be used: sslmode "
                    + "'verify-full' is not one of disable, prefer, require. Pass --database "
                    + "postgres://user@host:port/database."
            ),
            (
                ["--database", "postgres://app@127.0.0.1:5432/app", "--reset"],
                "--reset deletes a data directory; the data is in the database postgres://app@127.0.0.1:5432/app. "
                    + "Drop its tables yourself (or use another database) to start empty."
            ),
            (
                ["--database", "postgres://app@127.0.0.1:5432/app", "--database-wait", "nan"],
                "--database-wait takes a number of seconds, 0 or more, not nan."
            ),
        ]
    )
    func aBadDatabaseIsNamed(arguments: [String], message: String) async throws {
        let directory = try TemporaryDirectory()
        let schema = try directory.write(Self.noteSchema, to: "schema.graphql")
        let process = try await StratusProcess(
            ["serve", "--port", "0", "--schema", schema.path] + arguments,
            in: directory.url
        )
        #expect(try await process.exitStatus() == 1)
        #expect(process.standardError == "Error: \(message)\n")
        #expect(!FileManager.default.fileExists(atPath: directory.path(".stratus")))
    }

    /// The data directory's `api-key` as a link to a file another user wrote: the server took that
    /// user's key as its own.
    @Test func aLinkedAPIKeyFileIsRefused() async throws {
        let directory = try TemporaryDirectory()
        let schema = try directory.write(Self.noteSchema, to: "schema.graphql")
        try FileManager.default.createDirectory(atPath: directory.path("data"), withIntermediateDirectories: true)
        let planted = try directory.write("da2-chosenbysomeoneelse", to: "planted-key")
        try FileManager.default.createSymbolicLink(
            atPath: directory.path("data/api-key"),
            withDestinationPath: planted.path
        )
        let process = try await StratusProcess(
            ["serve", "--port", "0", "--schema", schema.path, "--data-dir", directory.path("data")],
            in: directory.url
        )
        #expect(try await process.exitStatus() == 1)
        let link = directory.path("data/api-key")
        #expect(
            process.standardError
                == "Error: The data file '\(link)' is a symbolic link (to '\(planted.path)'). The server does not "
                + "follow links in its data directory: a link planted while the directory was open to other users "
                + "would send the signing key and the users' data to a file they read. Remove the link "
                + "(rm '\(link)'), or use another data directory.\n"
        )
        #expect(process.standardOutput == "")
    }

    @Test func aPortInUseIsNamed() async throws {
        let directory = try TemporaryDirectory()
        let schema = try directory.write(Self.noteSchema, to: "schema.graphql")
        let first = try await Serving(["--schema", schema.path, "--data-dir", directory.path("first")], in: directory)
        let second = try await StratusProcess(
            ["serve", "--schema", schema.path, "--data-dir", directory.path("second"), "--port", "\(first.port)"],
            in: directory.url
        )
        #expect(try await second.exitStatus() == 1)
        #expect(
            second.standardError
                == "Error: Port \(first.port) on 127.0.0.1 is in use. Stop the other server or pass --port with a "
                + "free port (0 picks one).\n"
        )
        // Nothing was created for a server that could not listen.
        #expect(!FileManager.default.fileExists(atPath: directory.path("second")))
        await first.process.stop()
    }

    @Test(
        arguments: [
            (
                #"{"authorization": {"defaultMode": "PASSWORD"}}"#,
                "Unknown authorization mode 'PASSWORD' in the configuration file. Use one of: "
                    + "API_KEY, AWS_IAM, AMAZON_COGNITO_USER_POOLS, OPENID_CONNECT, AWS_LAMBDA, NONE."
            ),
            (
                #"{"models": {"Note": {"conflictResolution": "LATEST_WINS"}}}"#,
                "Unknown conflictResolution 'LATEST_WINS' in the configuration file. "
                    + "Use AUTOMERGE, OPTIMISTIC_CONCURRENCY or LAMBDA (with a conflictHandler)."
            ),
            (
                #"{"authorization": {"apiKeys": [{"expires": "2030-01-01T00:00:00Z"}]}}"#,
                #"The configuration file 'stratus.json' lacks "value" at authorization.apiKeys[0]. "#
                    + "See `stratus serve --help`."
            ),
            (
                #"{"authorisation": {"defaultMode": "API_KEY"}}"#,
                "The configuration file has the unknown key 'authorisation' at its top level. "
                    + "Did you mean 'authorization'?"
            ),
            (
                #"{"apiKeys": [{"value": "da2-local"}]}"#,
                "The configuration file has the unknown key 'apiKeys' at its top level. It belongs in authorization."
            ),
            (
                #"{"authorization": {"apiKey": "da2-local"}}"#,
                "authorization has the unknown key 'apiKey' in the configuration file. Did you mean 'apiKeys'?"
            ),
            (
                #"{"models": {"Note": {"conflictResolutoin": "AUTOMERGE"}}}"#,
                "models.Note has the unknown key 'conflictResolutoin' in the configuration file. "
                    + "Did you mean 'conflictResolution'?"
            ),
            (
                #"{"models": {"Notte": {"conflictResolution": "OPTIMISTIC_CONCURRENCY"}}}"#,
                "models.Notte in the configuration file is not a model of the schema. Did you mean 'Note'?"
            ),
            (
                #"{"maxRequestBytes": "1MB"}"#,
                "The configuration file 'stratus.json' has an invalid value at maxRequestBytes: Expected to decode Int "
                    + "but found a string instead. See `stratus serve --help`."
            ),
            (
                #"{"queryDepthLimit": 80}"#,
                "queryDepthLimit 80 in the configuration file is out of range. Give 1 to 75, or 0 for no limit "
                    + "of your own (requests nesting fields deeper than 75 levels are refused anyway)."
            ),
            (
                #"{"idleTimeoutSeconds": 0}"#,
                "idleTimeoutSeconds 0.0 in the configuration file is out of range. Give a number of seconds above 0."
            ),
            (
                #"{"idempotencyKeyTTLSeconds": -1}"#,
                "idempotencyKeyTTLSeconds -1.0 in the configuration file is out of range. "
                    + "Give a number of seconds above 0 (86400, the default, keeps keys for 24 hours)."
            ),
            (
                #"{"deltaSyncTTLSeconds": 0}"#,
                "deltaSyncTTLSeconds 0.0 in the configuration file is out of range. Give a number of seconds above 0 "
                    + "(1800, the default, keeps 30 minutes)."
            ),
            (
                #"{"conflictResolution": "AUTOMERGE""#,
                "The configuration file 'stratus.json' is not valid JSON at line 1, column 35: "
                    + "unexpected end of input. See `stratus serve --help`."
            ),
            (
                #"{"authorization": {"defaultMode": "AMAZON_COGNITO_USER_POOLS"}}"#,
                "AMAZON_COGNITO_USER_POOLS needs authorization.userPool with userPoolId (and jwksUrl or jwksFile when "
                    + "the keys are not at the pool's issuer) in the configuration file, or the local Cognito (--auth, "
                    + #"or an "auth" block in the file)."#
            ),
            (
                #"{"authorization": {"defaultMode": "OPENID_CONNECT", "openIDConnect": {"issuer": "my issuer"}}}"#,
                "authorization.openIDConnect.issuer 'my issuer' is not an http(s) URL, so its keys cannot be "
                    + "fetched from <issuer>/.well-known/jwks.json. Give an https:// issuer, or jwksUrl or jwksFile."
            ),
            (
                #"{"authorization": {"openIDConnect": {"local": true, "jwksUrl": "https://idp.example.com/keys"}}}"#,
                "authorization.openIDConnect is local: its tokens are signed with the server's own key, so it takes "
                    + #"no jwksUrl or jwksFile. Remove them, or drop "local" to trust another provider."#
            ),
            (
                #"{"authorization": {"userPool": {"userPoolId": "us-east-1_Abc", "appIdClientRegex": "web("}}}"#,
                "authorization.userPool.appIdClientRegex 'web(' is not a regular expression: no token's client "
                    + "would match it. Fix the pattern, or remove it to accept every client."
            ),
            (
                #"{"authorization": {"openIDConnect": {"issuer": "https://idp.example.com", "clientId": "[web"}}}"#,
                "authorization.openIDConnect.clientId '[web' is not a regular expression: no token's client "
                    + "would match it. Fix the pattern, or remove it to accept every client."
            ),
            (
                #"{"rest": [{"name": "items", "routes": [{"path": "/items", "methods": ["FETCH"]}]}]}"#,
                "Unknown method 'FETCH' on the REST route /items of 'items'. "
                    + "Use ANY, GET, POST, PUT, DELETE, PATCH, HEAD, OPTIONS."
            ),
            (
                #"{"databaseConnections": 0}"#,
                "databaseConnections in 'stratus.json' is 0; give at least 1 (16 is the default)."
            ),
            (
                #"{"database": "mysql://db.example.com/app"}"#,
                "The database URL 'mysql://db.example.com/app' cannot be used: it is not a postgres:// URL "
                    + "(postgres://user@host:port/database). Pass --database postgres://user@host:port/database."
            ),
            (
                #"{"auth": {"publicOrigin": "auth.example.com"}}"#,
                "auth.publicOrigin 'auth.example.com' is not an origin. Write it as http(s)://host[:port], the "
                    + "address clients reach the servers at."
            ),
            (
                #"{"functions": {"echo-dev": {"comand": ["python3", "echo.py"]}}}"#,
                "functions.echo-dev has the unknown key 'comand' in the configuration file. Use command, runtime, "
                    + "concurrency, timeoutSeconds, environment, directory."
            ),
            (
                #"{"functions": {"echo-dev": {"timeoutSeconds": 5}}}"#,
                #"functions.echo-dev in the configuration file needs "command": ["python3", "handler.py"] (run for "#
                    + #"each invocation, the event on its standard input) or "runtime": ["python3", "-m", "#
                    + #""awslambdaric", "app.handler"] (processes that poll the Lambda Runtime API)."#
            ),
            (
                #"{"functions": {"echo-dev": {"runtime": ["python3", "-m", "awslambdaric"], "concurrency": 0}}}"#,
                "functions.echo-dev.concurrency is 0. Give 1 or more processes."
            ),
            (
                #"{"authorization": {"additionalModes": ["AWS_LAMBDA"]}}"#,
                "AWS_LAMBDA is among the authorization modes of the configuration file, but nothing decides on its "
                    + #"tokens. Add "lambdaAuthorizer": {"function": "authorizer-dev"} under authorization, with that "#
                    + "function under functions."
            ),
            (
                #"{"authorization": {"additionalModes": ["AWS_LAMBDA"], "lambdaAuthorizer": {"function": "auth"}}}"#,
                "authorization.lambdaAuthorizer names the function 'auth', which functions does not configure. Add it "
                    + "under functions."
            ),
            (
                #"{"authorization": {"lambdaAuthorizer": {"function": "auth"}}, "#
                    + #""functions": {"auth": {"command": ["python3", "auth.py"]}}}"#,
                "authorization.lambdaAuthorizer is set, but AWS_LAMBDA is not among the authorization modes of the "
                    + #"configuration file. Add "AWS_LAMBDA" to additionalModes (or make it the defaultMode)."#
            ),
            (
                #"{"resolvers": {"Query.weather": {"function": "weather-dev"}}}"#,
                "resolvers.Query.weather names the function 'weather-dev', which functions does not configure. "
                    + #"Add "functions": {"weather-dev": {"command": ["python3", "handler.py"]}}."#
            ),
            (
                #"{"resolvers": {"Query.weather": {"dataSource": "LAMBDA"}}}"#,
                #"resolvers.Query.weather has the data source 'LAMBDA'. Use "NONE" (the field answers its "#
                    + #"arguments), or {"function": "name"} for a Lambda function."#
            ),
            (
                #"{"resolvers": {"Note.title": {"dataSource": "NONE", "batchSize": 5}}}"#,
                "resolvers.Note.title.batchSize batches the invocations of a function, and resolvers.Note.title names "
                    + #"none. Give it {"function": "name-dev", "batchSize": 5}."#
            ),
            (
                #"{"resolvers": {"Query.listNotes": {"dataSource": "NONE"}}}"#,
                "resolvers names 'Query.listNotes', which is neither a hand-written query or mutation of the schema "
                    + "nor a field of one of its types that no relation resolves. Name fields as Type.field "
                    + "(Query.weather, Post.summary). The schema has no hand-written query or mutation."
            ),
            (
                #"{"resolvers": {"Query.page": {"http": "127.0.0.1:8080"}}}"#,
                "resolvers.Query.page.http is '127.0.0.1:8080' in the configuration file, which is not an http:// or "
                    + #"https:// URL with a host and no query. Give one such as "http://127.0.0.1:8080"."#
            ),
            (
                #"{"httpOrigins": {"https://api.example.com/v1": "http://127.0.0.1:8080"}}"#,
                "'https://api.example.com/v1' in httpOrigins is not an origin. Give the start of the @http URL up to "
                    + #"its path, such as "https://api.example.com"."#
            ),
            (
                #"{"httpOrigins": {"https://api.example.com": "http://127.0.0.1:8080"}}"#,
                "httpOrigins maps 'https://api.example.com', which no @http field calls. The schema has no @http "
                    + "field; remove httpOrigins."
            ),
            (
                #"{"conflictDetection": false, "models": {"Note": {"conflictDetection": true}}}"#,
                "Model 'Note' turns conflictDetection on, but the configuration file turns it off for the whole "
                    + #"API. Remove "conflictDetection": false at the top, and set it false on the models that "#
                    + "should not have it."
            ),
            (
                // Foundation's decoder on Linux would take the trailing comma.
                "{\n  \"conflictResolution\": \"AUTOMERGE\",\n}\n",
                "The configuration file 'stratus.json' is not valid JSON at line 3, column 1: "
                    + "expected a key. See `stratus serve --help`."
            ),
        ]
    )
    func aBadConfigurationIsNamed(config: String, message: String) async throws {
        let directory = try TemporaryDirectory()
        try directory.write(config, to: "stratus.json")
        let schema = try directory.write(Self.noteSchema, to: "schema.graphql")
        let process = try await StratusProcess(
            ["serve", "--port", "0", "--schema", schema.path, "--config", "stratus.json"],
            in: directory.url
        )
        #expect(try await process.exitStatus() == 1)
        #expect(process.standardError == "Error: \(message)\n")
        #expect(!FileManager.default.fileExists(atPath: directory.path(".stratus")))
    }
}
