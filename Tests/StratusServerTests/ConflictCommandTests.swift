import Foundation
import StratusServer
import Testing

/// A custom conflict handler that is an external command: JSON in on stdin, a decision out on
/// stdout, and failures that reject the write without writing.
@Suite struct ConflictCommandTests {
    /// A server whose Post conflicts go to a Python script, with p1 at version 2 titled "B".
    private func server(_ script: String, timeout: Duration = .seconds(30)) async throws -> (TestServer, URL) {
        let directory = temporaryDirectory()
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        try Data(script.utf8).write(to: directory.appending(path: "resolve.py"))
        let command = ConflictHandlerCommand(
            arguments: ["python3", "resolve.py"],
            workingDirectory: directory,
            timeout: timeout
        )
        let server = try await ConflictTests.server(ServerConfiguration(conflictResolution: .custom(command.handler)))
        return (server, directory)
    }

    private let staleUpdate =
        #"mutation { updatePost(input: {id: "p1", title: "C", _version: 1}) { id title _version } }"#

    @Test func theCommandReadsThePayloadAndResolves() async throws {
        let (server, directory) = try await server(
            """
            import json, sys
            payload = json.load(sys.stdin)
            with open("payload.json", "w") as f:
                json.dump(payload, f, sort_keys=True)
            item = payload["existingItem"]
            item["title"] = payload["newItem"]["title"] + "+" + item["title"]
            print(json.dumps({"action": "RESOLVE", "resolvedItem": item}))
            """
        )
        defer { try? FileManager.default.removeItem(at: directory) }
        let answer = await server.run(staleUpdate)
        #expect(answer == #"{"data":{"updatePost":{"id":"p1","title":"C+B","_version":3}}}"#)
        let payload = try JSON(parsing: String(contentsOf: directory.appending(path: "payload.json"), encoding: .utf8))
        #expect(payload["typeName"] == "Post")
        #expect(payload["resolver"] == "updatePost")
        #expect(payload["newItem"] == ["id": "p1", "title": "C", "_version": 1])
        #expect(payload["existingItem"]?["title"] == "B")
        #expect(payload["existingItem"]?["_version"] == 2)
        #expect(payload["arguments"]?["input"]?["_version"] == 1)
        #expect(payload["identity"]?["authorizationMode"] == "API_KEY")
    }

    @Test func rejectAnswersConflictUnhandled() async throws {
        let (server, directory) = try await server(#"print('{"action": "REJECT"}')"#)
        defer { try? FileManager.default.removeItem(at: directory) }
        let body = await server.json(staleUpdate)
        #expect(body["errors"]?[0]?["errorType"] == "ConflictUnhandled")
        #expect(body["errors"]?[0]?["message"] == "Conflict resolver rejects mutation.")
        #expect(body["errors"]?[0]?["data"] == ["id": "p1", "title": "B", "_version": 2])
    }

    @Test func removeLeavesATombstone() async throws {
        let (server, directory) = try await server(#"print('{"action": "REMOVE"}')"#)
        defer { try? FileManager.default.removeItem(at: directory) }
        _ = await server.run(staleUpdate)
        #expect(
            await server.run(#"{ getPost(id: "p1") { _version _deleted } }"#)
                == #"{"data":{"getPost":{"_version":3,"_deleted":true}}}"#
        )
    }

    @Test(arguments: [
        (
            "import sys\nsys.stdin.read()\nsys.stderr.write('no database\\n')\nsys.exit(3)",
            "The conflict handler command `python3 resolve.py` exited with status 3: no database"
        ),
        (
            "print('maybe')",
            "The conflict handler command `python3 resolve.py` answered 'maybe\n', not a JSON object with an "
                + #""action". Answer {"action":"RESOLVE","resolvedItem":{…}}, {"action":"REJECT"} or {"action":"REMOVE"}."#
        ),
        (
            #"print('{"action": "MERGE"}')"#,
            "The conflict handler command `python3 resolve.py` answered the unknown action 'MERGE'. "
                + "Answer RESOLVE, REJECT or REMOVE."
        ),
        (
            #"print('{"action": "RESOLVE"}')"#,
            #"The conflict handler command `python3 resolve.py` answered RESOLVE without a "resolvedItem" object."#
        ),
    ])
    func aFailingCommandFailsTheWriteAndWritesNothing(script: String, message: String) async throws {
        let (server, directory) = try await server(script)
        defer { try? FileManager.default.removeItem(at: directory) }
        let body = await server.json(staleUpdate)
        #expect(body["data"] == ["updatePost": nil])
        #expect(body["errors"]?[0]?["errorType"] == "ConflictUnhandled")
        #expect(body["errors"]?[0]?["message"]?.stringValue == message)
        #expect(
            await server.run(#"{ getPost(id: "p1") { title _version } }"#)
                == #"{"data":{"getPost":{"title":"B","_version":2}}}"#
        )
    }

    @Test func aCommandThatDoesNotAnswerInTimeIsKilled() async throws {
        let (server, directory) = try await server("import time\ntime.sleep(30)", timeout: .milliseconds(500))
        defer { try? FileManager.default.removeItem(at: directory) }
        let start = ContinuousClock.now
        let body = await server.json(staleUpdate)
        // Killed before its 30 s sleep ends, with room for a loaded machine.
        #expect(ContinuousClock.now - start < .seconds(25))
        #expect(
            body["errors"]?[0]?["message"]
                == "The conflict handler command `python3 resolve.py` did not answer within 0.5 seconds and was stopped."
        )
        #expect(await server.run(#"{ getPost(id: "p1") { title } }"#) == #"{"data":{"getPost":{"title":"B"}}}"#)
    }

    @Test func aCommandThatCannotStartFailsTheWrite() async throws {
        let command = ConflictHandlerCommand(arguments: ["stratus-no-such-program"])
        let server = try await ConflictTests.server(ServerConfiguration(conflictResolution: .custom(command.handler)))
        let body = await server.json(staleUpdate)
        #expect(body["errors"]?[0]?["errorType"] == "ConflictUnhandled")
        #expect(
            body["errors"]?[0]?["message"]?.stringValue?.hasPrefix(
                "The conflict handler command `stratus-no-such-program` exited with status 127"
            ) == true
        )
    }
}
