import AWSDataStorePlugin
import Amplify
import BlogModels
import Foundation
import StratusServer
import StratusTesting
import Testing

/// The Stratus Console's Devices page (`POST /console/api/devices`) and Functions page of
/// `stratus serve`, through the admin API and in headless Chromium
/// (Browser/console_devices_browser.py).
@Suite struct ConsoleDevicesTests {
    /// A DataStore database in `directory` with one create made offline (no API is
    /// configured, so it waits in the outbox), and that create's record as stored.
    static func offlineDataStore(in directory: TemporaryDirectory) async throws -> URL {
        let database = directory.url.appending(path: "device.sqlite")
        let plugin = AWSDataStorePlugin(
            modelRegistration: AmplifyModels(),
            configuration: DataStoreConfiguration(databaseURL: database)
        )
        try await plugin.save(Blog(id: "b1", name: "Written offline"))
        #expect(try await plugin.pendingMutations().count == 1)
        return database
    }

    /// `stratus serve` on a schema whose `Query.echo` is a Python function under awslambdaric
    /// that writes a log line, with its console's secret.
    static func serveWithFunction(
        in directory: TemporaryDirectory
    ) async throws -> (
        serving: ServeCommandTests.Serving, consoleURL: String, secret: String
    ) {
        try FileManager.default.createDirectory(
            at: directory.url.appending(path: "echo"),
            withIntermediateDirectories: true
        )
        try directory.write(
            """
            def handler(event, context):
                print("echo was asked for " + event["arguments"]["text"])
                return event["arguments"]["text"].upper()
            """,
            to: "echo/index.py"
        )
        try directory.write(
            #"""
            {"functions": {"echo-dev": {"runtime": ["python3", "-m", "awslambdaric", "index.handler"],
                                        "directory": "echo", "timeoutSeconds": 20}},
             "resolvers": {"Query.echo": {"function": "echo-dev"}}}
            """#,
            to: "stratus.json"
        )
        let schema = try directory.write(
            "type Note @model { id: ID! text: String }\ntype Query { echo(text: String!): String }",
            to: "schema.graphql"
        )
        let serving = try await ServeCommandTests.Serving(
            [
                "--schema", schema.path, "--config", directory.path("stratus.json"), "--data-dir",
                directory.path("data"),
            ],
            in: directory
        )
        let line = try await serving.process.line(startingWith: "Console: ")
        let url = String(line.dropFirst("Console: ".count))
        let secret = String(try #require(url.split(separator: "secret=").last))
        return (serving, url, secret)
    }

    @Test func theDevicesRouteAnswersTheInspectionOfTheDatabaseAtAPath() async throws {
        let directory = try TemporaryDirectory()
        let database = try await Self.offlineDataStore(in: directory)
        let (serving, _, secret) = try await Self.serveWithFunction(in: directory)
        let devices = try #require(URL(string: "http://127.0.0.1:\(serving.port)/console/api/devices"))
        let bearer = ["Authorization": "Bearer \(secret)"]
        let body = String(decoding: try JSONSerialization.data(withJSONObject: ["path": database.path]), as: UTF8.self)
        let answer = try await HTTPExchange(devices, post: body, headers: bearer)
        let missing = try await HTTPExchange(
            devices,
            post: #"{"path": "\#(directory.path("missing.sqlite"))"}"#,
            headers: bearer
        )
        let nothing = try await HTTPExchange(devices, post: #"{"file": "device.sqlite"}"#, headers: bearer)
        let badInterval = try await HTTPExchange(
            devices,
            post: #"{"path": "\#(database.path)", "syncIntervalMinutes": 0}"#,
            headers: bearer
        )
        let withoutSecret = try await HTTPExchange(devices, post: body)
        await serving.process.stop()

        #expect(answer.status == 200)
        let inspected = try JSON(parsing: answer.body)
        #expect(inspected == (try DeviceStoreInspection(fileAt: database)).json)
        #expect(inspected["dataStore"]?["outbox"]?[0]?["modelId"] == "b1")
        #expect(inspected["dataStore"]?["outbox"]?[0]?["kind"] == "create")
        #expect(missing.status == 404)
        #expect(
            missing.body
                == #"{"errors":[{"errorType":"fileMissing","message":"No file at '\#(directory.path("missing.sqlite"))'. "#
                + "Pass the path of a DataStore database (the databaseURL of its DataStoreConfiguration) or of an "
                + "AppSync client's database (offlineMutations.db, queries.db or subscriptionMetadataCache.db in its "
                + #"cache directory)."}]}"#
        )
        #expect(nothing.status == 400)
        #expect(
            nothing.body
                == #"{"errors":[{"errorType":"BadRequestException","message":"The body names no database: send "#
                + #"{\"path\": \"/path/to/datastore.sqlite\"}, the path of a DataStore database or of an AppSync "#
                + #"client's offlineMutations.db, queries.db or subscriptionMetadataCache.db."}]}"#
        )
        #expect(badInterval.status == 400)
        #expect(
            badInterval.body
                == #"{"errors":[{"errorType":"BadRequestException","message":"syncIntervalMinutes is 0; give the "#
                + #"app's DataStore sync interval in minutes, more than 0 (1440 unless the app sets one)."}]}"#
        )
        #expect(withoutSecret.status == 401)
        #expect(!withoutSecret.body.contains("b1"))
    }

    @Test func theFunctionsRouteShowsEachInvocationWithItsLogLine() async throws {
        let directory = try TemporaryDirectory()
        let (serving, _, secret) = try await Self.serveWithFunction(in: directory)
        #expect(try await serving.graphQL(#"{ echo(text: "hi") }"#) == #"{"data":{"echo":"HI"}}"#)
        #expect(try await serving.graphQL(#"{ echo(text: "ho") }"#) == #"{"data":{"echo":"HO"}}"#)
        let functions = try #require(URL(string: "http://127.0.0.1:\(serving.port)/console/api/functions"))
        let bearer = ["Authorization": "Bearer \(secret)"]
        // The lines arrive through a pipe, shortly after the answers.
        var answer = try JSON(parsing: try await HTTPExchange(functions, headers: bearer).body)
        for _ in 0..<100 where answer["invocations"]?[0]?["logLines"] == [] {
            try await Task.sleep(for: .milliseconds(50))
            answer = try JSON(parsing: try await HTTPExchange(functions, headers: bearer).body)
        }
        let after = try await HTTPExchange(
            try #require(URL(string: functions.absoluteString + "?after=1")),
            headers: bearer
        )
        let wrong = try await HTTPExchange(
            try #require(URL(string: functions.absoluteString + "?after=x")),
            headers: bearer
        )
        await serving.process.stop()

        #expect(answer["capacity"] == 200)
        #expect(answer["functions"] == ["echo-dev"])
        let invocations = try #require(answer["invocations"]?.arrayValue)
        #expect(invocations.count == 2)
        let (ho, hi) = (invocations[0], invocations[1])
        #expect(ho["sequence"] == 2 && hi["sequence"] == 1)
        #expect(hi["function"] == "echo-dev")
        #expect(hi["status"] == "SUCCEEDED")
        #expect(hi["event"]?["arguments"] == ["text": "hi"])
        #expect(hi["event"]?["info"]?["fieldName"] == "echo")
        #expect(hi["result"] == "HI" && ho["result"] == "HO")
        #expect(hi["error"] == .null)
        #expect((hi["durationMs"]?.doubleValue ?? -1) >= 0)
        #expect(hi["logLines"] == ["echo was asked for hi"])
        #expect(ho["logLines"] == ["echo was asked for ho"])
        #expect(try JSON(parsing: after.body)["invocations"]?.arrayValue?.count == 1)
        #expect(wrong.status == 400)
        #expect(
            wrong.body
                == #"{"errors":[{"errorType":"BadRequestException","message":"The 'after' parameter is 'x'. Give the "#
                + #"sequence number of the last invocation seen (0 or more)."}]}"#
        )
    }

    @Test func thePageShowsAnInvocationWithItsLogLineAndAnOfflineMutation() async throws {
        for program in ["/usr/bin/chromium", "/usr/bin/chromedriver"]
        where !FileManager.default.fileExists(atPath: program) {
            Issue.record(
                "\(program) is missing: apt-get install chromium chromium-driver (scripts/test installs them)."
            )
            return
        }
        let directory = try TemporaryDirectory()
        let database = try await Self.offlineDataStore(in: directory)
        let (serving, url, _) = try await Self.serveWithFunction(in: directory)
        // A client asks; the page only looks.
        #expect(try await serving.graphQL(#"{ echo(text: "from a client") }"#) == #"{"data":{"echo":"FROM A CLIENT"}}"#)
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appending(path: "Browser/console_devices_browser.py")
        let result = try await ChildProcess.run(
            ["python3", script.path(percentEncoded: false), url, database.path, directory.path("missing.sqlite")]
        )
        await serving.process.stop()
        let output = result.outputText + result.errorText
        #expect(result.status == .exited(0), "\(output)")
        #expect(output.contains("console devices browser test passed"), "\(output)")
    }
}
