import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1
import StratusCognito
import StratusServer
import Testing

/// The Users page's admin API: the local Cognito's users, the administrator's operations on
/// them, and the inbox of the codes the pool would have sent.
@Suite struct ConsoleUsersTests {
    typealias Served = ConsoleTests.Served

    /// Sends `body` to `path` with the secret.
    static func call(
        _ served: Served,
        _ method: HTTPMethod,
        _ path: String,
        _ body: String? = nil
    ) async throws -> (status: Int, body: String) {
        let answer = try await served.send(
            method,
            path,
            body: body,
            headers: [("authorization", "Bearer \(ConsoleTests.secret)")]
        )
        return (answer.status, answer.body)
    }

    /// Calls the pool's own endpoint as an app would: `operation` of the user pool service.
    static func cognito(_ served: Served, _ operation: String, _ body: String) async throws -> (Int, String) {
        var request = HTTPClientRequest(url: served.origin + "/")
        request.method = .POST
        request.headers.add(name: "content-type", value: "application/x-amz-json-1.1")
        request.headers.add(name: "x-amz-target", value: "AWSCognitoIdentityProviderService.\(operation)")
        request.body = .bytes(ByteBuffer(string: body))
        let response = try await ConsoleTests.client.execute(request, timeout: .seconds(60))
        return (Int(response.status.code), String(buffer: try await response.body.collect(upTo: 1 << 20)))
    }

    @Test func withoutALocalCognitoTheUsersRoutesSayHowToHaveOne() async throws {
        let served = try await Served()
        let users = try await Self.call(served, .GET, "/console/api/users")
        let inbox = try await Self.call(served, .GET, "/console/api/inbox")
        await served.stop()
        let expected =
            #"{"errors":[{"errorType":"BadRequestException","message":"The server has no local Cognito, so there are "#
            + #"no users to manage: start stratus serve with --auth."}]}"#
        #expect(users.status == 404)
        #expect(users.body == expected)
        #expect(inbox.status == 404)
        #expect(inbox.body == expected)
    }

    @Test func malformedCallsSayWhatToSend() async throws {
        let served = try await Served(cognito: true)
        let array = try await Self.call(served, .POST, "/console/api/users/confirm", "[]")
        let noPassword = try await Self.call(served, .POST, "/console/api/users", #"{"username":"carol"}"#)
        let noGroup = try await Self.call(served, .POST, "/console/api/users/groups", #"{"username":"carol"}"#)
        let noRoute = try await Self.call(served, .GET, "/console/api/people")
        await served.stop()
        func error(_ message: String) -> String {
            #"{"errors":[{"errorType":"BadRequestException","message":"# + message + "}]}"
        }
        #expect(array.status == 400)
        #expect(array.body == error(#""The body is not a JSON object. Send {\"username\": \"alice\"}.""#))
        #expect(noPassword.status == 400)
        #expect(
            noPassword.body
                == error(
                    #""A new user needs a password: send {\"username\": \"alice\", \"password\": \"…\", "#
                        + #"\"email\": \"…\"}.""#
                )
        )
        #expect(noGroup.status == 400)
        #expect(
            noGroup.body
                == error(
                    #""Name the group and whether the user joins it: {\"username\": \"alice\", \"group\": "#
                        + #"\"admins\", \"member\": true} (false removes the user from it).""#
                )
        )
        #expect(noRoute.status == 404)
        #expect(
            noRoute.body
                == error(
                    #""The admin API has no GET /console/api/people. It answers GET /console/api/models, GET "#
                        + #"/console/api/identities, GET /console/api/requests, GET /console/api/live, GET "#
                        + #"/console/api/functions, POST /console/api/devices, POST /console/api/graphql, POST "#
                        + #"/console/api/credentials, GET /console/api/history?model=<model>&<key field>=<value>, POST "#
                        + #"/console/api/generate, and (with --auth) GET /console/api/users, GET /console/api/inbox, "#
                        + #"POST /console/api/users (create), and POST /console/api/users/confirm, /disable, /enable, "#
                        + #"/delete, /groups and /password.""#
                )
        )
    }

    @Test func theUsersAreListedWithStatusAttributesAndGroups() async throws {
        let served = try await Served(cognito: true)
        let pool = try #require(served.backend.cognito)
        _ = try await pool.createGroupIfMissing("editors")
        _ = try await pool.createGroupIfMissing("admins")
        try await pool.addUser(
            username: "bob",
            password: "Bob-pass1!",
            attributes: ["email": "bob@example.com", "name": "Bob"],
            groups: ["admins"]
        )
        try await pool.addUser(username: "alice", password: "Alice-pass1!")
        let listed = try await Self.call(served, .GET, "/console/api/users")
        await served.stop()
        #expect(listed.status == 200)
        #expect(
            listed.body
                == #"{"users":[{"username":"alice","status":"CONFIRMED","enabled":true,"attributes":{},"groups":[]},"#
                + #"{"username":"bob","status":"CONFIRMED","enabled":true,"attributes":{"email":"bob@example.com","#
                + #""name":"Bob"},"groups":["admins"]}],"groups":["admins","editors"]}"#
        )
    }

    @Test func aUserIsCreatedDisabledEnabledGroupedGivenAPasswordAndDeleted() async throws {
        let served = try await Served(cognito: true)
        let pool = try #require(served.backend.cognito)
        _ = try await pool.createGroupIfMissing("admins")
        let created = try await Self.call(
            served,
            .POST,
            "/console/api/users",
            #"{"username":"carol","password":"Carol-pass1!","email":"carol@example.com"}"#
        )
        let again = try await Self.call(
            served,
            .POST,
            "/console/api/users",
            #"{"username":"carol","password":"Carol-pass1!"}"#
        )
        let temporary = try await Self.call(
            served,
            .POST,
            "/console/api/users",
            #"{"username":"dave","password":"Dave-pass1!","temporary":true}"#
        )
        let weak = try await Self.call(served, .POST, "/console/api/users", #"{"username":"erin","password":"short"}"#)
        let disabled = try await Self.call(served, .POST, "/console/api/users/disable", #"{"username":"carol"}"#)
        // A disabled user gets no tokens: the console cannot run as it either.
        let runAsDisabled = try await Self.call(
            served,
            .POST,
            "/console/api/graphql",
            #"{"query":"{ listNotes { items { id } } }","identity":{"type":"AMAZON_COGNITO_USER_POOLS","#
                + #""username":"carol"}}"#
        )
        let enabled = try await Self.call(served, .POST, "/console/api/users/enable", #"{"username":"carol"}"#)
        let grouped = try await Self.call(
            served,
            .POST,
            "/console/api/users/groups",
            #"{"username":"carol","group":"admins","member":true}"#
        )
        let noGroup = try await Self.call(
            served,
            .POST,
            "/console/api/users/groups",
            #"{"username":"carol","group":"owners","member":true}"#
        )
        let ungrouped = try await Self.call(
            served,
            .POST,
            "/console/api/users/groups",
            #"{"username":"carol","group":"admins","member":false}"#
        )
        let password = try await Self.call(
            served,
            .POST,
            "/console/api/users/password",
            #"{"username":"dave","password":"Dave-pass2!"}"#
        )
        let confirmConfirmed = try await Self.call(
            served,
            .POST,
            "/console/api/users/confirm",
            #"{"username":"dave"}"#
        )
        let deleted = try await Self.call(served, .POST, "/console/api/users/delete", #"{"username":"carol"}"#)
        let deletedAgain = try await Self.call(served, .POST, "/console/api/users/delete", #"{"username":"carol"}"#)
        let nameless = try await Self.call(served, .POST, "/console/api/users/enable", #"{"user":"carol"}"#)
        let unknown = try await Self.call(served, .POST, "/console/api/users/promote", #"{"username":"dave"}"#)
        let left = try await pool.listUsers().map(\.username)
        await served.stop()

        func user(_ name: String, _ status: String, enabled: Bool = true, _ rest: String) -> String {
            #"{"user":{"username":"\#(name)","status":"\#(status)","enabled":\#(enabled),"attributes":"# + rest + "}}"
        }
        #expect(created.status == 200)
        #expect(created.body == user("carol", "CONFIRMED", #"{"email":"carol@example.com"},"groups":[]"#))
        #expect(again.status == 409)
        #expect(
            again.body
                == #"{"errors":[{"errorType":"UsernameExistsException","message":"AdminCreateUser refused: User already "#
                + #"exists. Choose another username, or delete the user 'carol' first."}]}"#
        )
        #expect(temporary.body == user("dave", "FORCE_CHANGE_PASSWORD", #"{},"groups":[]"#))
        #expect(weak.status == 400)
        #expect(weak.body.hasPrefix(#"{"errors":[{"errorType":"InvalidPasswordException","message":"AdminCreateUser "#))
        #expect(weak.body.hasSuffix(#". Choose a password the pool's policy accepts."}]}"#))
        #expect(
            disabled.body == user("carol", "CONFIRMED", enabled: false, #"{"email":"carol@example.com"},"groups":[]"#)
        )
        #expect(runAsDisabled.status == 400)
        #expect(runAsDisabled.body.contains("Cannot run as Cognito user 'carol'"))
        #expect(runAsDisabled.body.contains("User is disabled."))
        #expect(enabled.body == user("carol", "CONFIRMED", #"{"email":"carol@example.com"},"groups":[]"#))
        #expect(grouped.body == user("carol", "CONFIRMED", #"{"email":"carol@example.com"},"groups":["admins"]"#))
        #expect(noGroup.status == 404)
        #expect(
            noGroup.body
                == #"{"errors":[{"errorType":"ResourceNotFoundException","message":"AdminAddUserToGroup refused: Group "#
                + #"not found. Name one of the pool's groups (GET /console/api/users lists them)."}]}"#
        )
        #expect(ungrouped.body == user("carol", "CONFIRMED", #"{"email":"carol@example.com"},"groups":[]"#))
        #expect(password.body == user("dave", "CONFIRMED", #"{},"groups":[]"#))
        #expect(confirmConfirmed.status == 409)
        #expect(
            confirmConfirmed.body
                == #"{"errors":[{"errorType":"NotAuthorizedException","message":"AdminConfirmSignUp refused: User "#
                + #"cannot be confirmed. Current status is CONFIRMED. Only an UNCONFIRMED user is confirmed."}]}"#
        )
        #expect(deleted.body == #"{"deleted":"carol"}"#)
        #expect(deletedAgain.status == 404)
        #expect(
            deletedAgain.body
                == #"{"errors":[{"errorType":"UserNotFoundException","message":"AdminDeleteUser refused: User does not "#
                + #"exist. There is no user 'carol': reload the list of users."}]}"#
        )
        #expect(nameless.status == 400)
        #expect(
            nameless.body
                == #"{"errors":[{"errorType":"BadRequestException","message":"The body names no user: send "#
                + #"{\"username\": \"alice\"} with the user's name."}]}"#
        )
        #expect(unknown.status == 404)
        #expect(
            unknown.body
                == #"{"errors":[{"errorType":"BadRequestException","message":"The admin API has no POST "#
                + #"/console/api/users/promote. The Users page's routes are GET /console/api/users, GET "#
                + #"/console/api/inbox, POST /console/api/users (create), and POST /console/api/users/confirm, "#
                + #"/disable, /enable, /delete, /groups and /password."}]}"#
        )
        #expect(left == ["dave"])
    }

    /// A sign-up and a forgotten password through the pool's own endpoint, as an app makes them:
    /// the inbox shows both codes, newest first, and keeps them once used.
    @Test func theInboxShowsTheCodesThePoolWouldHaveSent() async throws {
        let served = try await Served(cognito: true)
        let pool = try #require(served.backend.cognito)
        try await pool.addUser(username: "alice", password: "Alice-pass1!", attributes: ["email": "alice@example.com"])
        let client = try #require(pool.configuration.clients.first?.clientId)
        let signUp = try await Self.cognito(
            served,
            "SignUp",
            #"{"ClientId":"\#(client)","Username":"frank","Password":"Frank-pass1!","#
                + #""UserAttributes":[{"Name":"email","Value":"frank@example.com"}]}"#
        )
        let forgot = try await Self.cognito(served, "ForgotPassword", #"{"ClientId":"\#(client)","Username":"alice"}"#)
        let signUpCode = try #require(try await pool.pendingCode(for: "frank"))
        let resetCode = try #require(try await pool.pendingCode(for: "alice", passwordReset: true))
        let inbox = try await Self.call(served, .GET, "/console/api/inbox")
        let confirmed = try await Self.call(served, .POST, "/console/api/users/confirm", #"{"username":"frank"}"#)
        let afterwards = try await Self.call(served, .GET, "/console/api/inbox")
        await served.stop()
        #expect(signUp.0 == 200 && forgot.0 == 200, "\(signUp) \(forgot)")
        // The times vary; the rest is exact.
        let answer = try #require(try JSON(parsing: inbox.body).objectValue)
        let codes = try #require(answer["codes"]?.arrayValue)
        let times = codes.compactMap { $0["time"]?.stringValue }
        #expect(times.count == 2)
        #expect(times.allSatisfy { (try? Date.ISO8601FormatStyle(includingFractionalSeconds: true).parse($0)) != nil })
        #expect(times == times.sorted(by: >))
        var timeless = inbox.body
        for time in times { timeless = timeless.replacingOccurrences(of: time, with: "T") }
        #expect(
            timeless
                == #"{"capacity":100,"codes":[{"time":"T","username":"alice","destination":"alice@example.com","#
                + #""purpose":"RESET_PASSWORD","code":"\#(resetCode)"},{"time":"T","username":"frank","#
                + #""destination":"frank@example.com","purpose":"CONFIRM_SIGN_UP","code":"\#(signUpCode)"}]}"#
        )
        #expect(confirmed.body.hasPrefix(#"{"user":{"username":"frank","status":"CONFIRMED","#))
        #expect(afterwards.body == inbox.body)
    }
}
