import Foundation
import StratusTesting
import Testing

/// `stratus serve --auth` and `stratus users`: the local Cognito from the command line.
@Suite struct AuthCommandTests {
    static let config = """
        {
          "auth": {
            "userPoolId": "us-east-1_Cli",
            "clients": [{ "clientId": "cliclient" }],
            "groups": ["Admins"],
            "users": [{ "username": "alice", "password": "Alice-pass1!", "attributes": { "email": "alice@example.com" },
                        "groups": ["Admins"] }],
            "identityPoolId": "us-east-1:11111111-2222-4333-8444-555555555555"
          }
        }
        """

    /// Runs `stratus users arguments` against the data directory and configuration of `directory`.
    static func users(_ arguments: [String], in directory: TemporaryDirectory) async throws -> StratusProcess {
        let process = try await StratusProcess(
            ["users"] + arguments + ["--data-dir", directory.path("data"), "--config", directory.path("stratus.json")],
            in: directory.url
        )
        _ = try await process.exitStatus()
        return process
    }

    /// A password sign-in through the running server's user pool.
    static func signIn(_ username: String, _ password: String, port: Int) async throws -> HTTPExchange {
        try await HTTPExchange(
            URL(string: "http://127.0.0.1:\(port)/")!,
            post: """
                {"AuthFlow":"USER_PASSWORD_AUTH","ClientId":"cliclient",\
                "AuthParameters":{"USERNAME":"\(username)","PASSWORD":"\(password)"}}
                """,
            headers: [
                "Content-Type": "application/x-amz-json-1.1",
                "X-Amz-Target": "AWSCognitoIdentityProviderService.InitiateAuth",
            ]
        )
    }

    /// Lists the users of `us-east-1_Cli` at `ORIGIN` with boto3 signing as `KEY SECRET` (its
    /// arguments), then tries with credentials the server does not know; prints the usernames,
    /// then the refusal's code.
    static let listUsersWithBoto3 = """
        import sys, boto3
        origin, key, secret = sys.argv[1:4]
        def pool(key, secret):
            return boto3.client("cognito-idp", endpoint_url=origin, region_name="us-east-1",
                                aws_access_key_id=key, aws_secret_access_key=secret)
        print([user["Username"] for user in pool(key, secret).list_users(UserPoolId="us-east-1_Cli")["Users"]])
        try:
            pool("AKIDANYONE", "any").list_users(UserPoolId="us-east-1_Cli")
        except Exception as error:
            print(error.response["Error"]["Code"])
        """

    @Test func serveWritesTheAuthSectionAndUsersAreManagedWhileItRuns() async throws {
        let directory = try TemporaryDirectory()
        _ = try directory.write(Self.config, to: "stratus.json")
        let schema = try directory.write(
            "type Note @model @auth(rules: [{allow: owner}]) { id: ID! text: String }",
            to: "schema.graphql"
        )
        let serving = try await ServeCommandTests.Serving(
            [
                "--schema", schema.path, "--config", directory.path("stratus.json"), "--data-dir",
                directory.path("data"),
            ],
            in: directory
        )
        let port = serving.port
        let origin = "http://127.0.0.1:\(port)"
        #expect(
            try await serving.process.line(startingWith: "Cognito user pool: ")
                == "Cognito user pool: us-east-1_Cli at \(origin)/ (issuer \(origin)/us-east-1_Cli)"
        )
        #expect(
            try await serving.process.line(startingWith: "Cognito app clients: ") == "Cognito app clients: cliclient"
        )
        #expect(
            try await serving.process.line(startingWith: "Cognito identity pool: ")
                == "Cognito identity pool: us-east-1:11111111-2222-4333-8444-555555555555"
        )

        // Without IAM credentials in the configuration, the administrator's calls are signed with
        // the pool's own, which the banner gives with their use from boto3.
        let banner = try await serving.process.line(startingWith: "Cognito administrator credentials: ")
        let credentials = banner.split(separator: " ").dropFirst(3).map(String.init)
        try #require(credentials.count == 2, "\(banner)")
        #expect(
            try await serving.process.line(startingWith: "  Sign AdminCreateUser")
                == "  Sign AdminCreateUser, ListUsers and the other administrator calls with them: "
                + "boto3.client(\"cognito-idp\", endpoint_url=\"\(origin)\", region_name=\"us-east-1\", "
                + "aws_access_key_id=\"\(credentials[0])\", aws_secret_access_key=\"\(credentials[1])\")"
        )
        let listUsers = try await ChildProcess.run([
            "python3", "-c", Self.listUsersWithBoto3, origin, credentials[0], credentials[1],
        ])
        #expect(listUsers.outputText == "['alice']\nUnrecognizedClientException\n", "\(listUsers.errorText)")
        // The data directory is its owner's alone, the API key's file included.
        let modes = try [directory.path("data"), directory.path("data/api-key")].map {
            try #require(FileManager.default.attributesOfItem(atPath: $0)[.posixPermissions] as? Int)
        }
        #expect(modes == [0o700, 0o600])

        // The Auth category's section, with the served endpoint.
        let amplify = try JSONSerialization.jsonObject(
            with: Data(contentsOf: directory.url.appending(path: "amplifyconfiguration.json"))
        )
        let plugin =
            try #require(
                ((amplify as? [String: Any])?["auth"] as? [String: Any])?["plugins"] as? [String: Any]
            )["awsCognitoAuthPlugin"] as? [String: Any]
        let pool = (plugin?["CognitoUserPool"] as? [String: Any])?["Default"] as? [String: String]
        #expect(
            pool == ["PoolId": "us-east-1_Cli", "AppClientId": "cliclient", "Region": "us-east-1", "Endpoint": origin]
        )
        let identity =
            ((plugin?["CredentialsProvider"] as? [String: Any])?["CognitoIdentity"] as? [String: Any])?[
                "Default"
            ] as? [String: String]
        #expect(
            identity == [
                "PoolId": "us-east-1:11111111-2222-4333-8444-555555555555", "Region": "us-east-1", "Endpoint": origin,
            ]
        )
        let aws = try String(contentsOf: directory.url.appending(path: "awsconfiguration.json"), encoding: .utf8)
        #expect(aws.contains(#""CognitoUserPool":{"Default":{"PoolId":"us-east-1_Cli""#), "\(aws)")
        #expect(aws.contains(#""AuthMode":"AMAZON_COGNITO_USER_POOLS""#), "\(aws)")

        // A user added from the command line while the server runs signs in through it, and
        // the ID token authorizes GraphQL requests (user pools became an additional mode).
        let add = try await Self.users(
            ["add", "bob", "--password", "Bob-pass1!", "--attribute", "email=bob@example.com"],
            in: directory
        )
        #expect(add.standardOutput == "Added bob.\n", "\(add.standardError)")
        let signIn = try await Self.signIn("bob", "Bob-pass1!", port: port)
        #expect(signIn.status == 200, "\(signIn.body)")
        let result = try JSONSerialization.jsonObject(with: Data(signIn.body.utf8)) as? [String: Any]
        let idToken = try #require((result?["AuthenticationResult"] as? [String: Any])?["IdToken"] as? String)
        let created = try await HTTPExchange(
            URL(string: "\(origin)/graphql")!,
            post: #"{"query":"mutation { createNote(input: {text: \"hi\"}) { text } }"}"#,
            headers: ["Authorization": idToken]
        )
        #expect(created.body == #"{"data":{"createNote":{"text":"hi"}}}"#)

        // A sign-up's code is printed, since no email leaves the machine.
        let signUp = try await HTTPExchange(
            URL(string: "\(origin)/")!,
            post: #"{"ClientId":"cliclient","Username":"carl","Password":"Carl-pass1!"}"#,
            headers: [
                "Content-Type": "application/x-amz-json-1.1",
                "X-Amz-Target": "AWSCognitoIdentityProviderService.SignUp",
            ]
        )
        #expect(signUp.status == 200, "\(signUp.body)")
        let printed = try await serving.process.line(startingWith: "Cognito: the confirmation code of 'carl' is ")
        let code = try #require(printed.split(separator: " ").last)
        let confirm = try await HTTPExchange(
            URL(string: "\(origin)/")!,
            post: #"{"ClientId":"cliclient","Username":"carl","ConfirmationCode":"\#(code)"}"#,
            headers: [
                "Content-Type": "application/x-amz-json-1.1",
                "X-Amz-Target": "AWSCognitoIdentityProviderService.ConfirmSignUp",
            ]
        )
        #expect(confirm.status == 200, "\(confirm.body)")

        let groups = try await Self.users(["groups", "bob", "--add", "Admins"], in: directory)
        #expect(groups.standardOutput == "Admins\n", "\(groups.standardError)")
        let list = try await Self.users(["list"], in: directory)
        let lines = list.standardOutput.split(separator: "\n").map {
            $0.split(separator: "\t").prefix(2).joined(separator: " ")
        }
        #expect(lines == ["alice CONFIRMED", "bob CONFIRMED", "carl CONFIRMED"], "\(list.standardOutput)")
        #expect(list.standardOutput.contains("email=alice@example.com groups=Admins"))

        let delete = try await Self.users(["delete", "bob"], in: directory)
        #expect(delete.standardOutput == "Deleted bob.\n")
        let again = try await Self.users(["delete", "bob"], in: directory)
        #expect(try await again.exitStatus() == 1)
        #expect(again.standardError == "Error: UserNotFoundException: User does not exist.\n")
        let refused = try await Self.signIn("bob", "Bob-pass1!", port: port)
        #expect(refused.status == 400)
        #expect(refused.body == #"{"__type":"NotAuthorizedException","message":"Incorrect username or password."}"#)
        await serving.process.stop()
    }

    /// The README's own example: a user added to a group the pool lacks, in a directory with no
    /// pool yet.
    @Test func usersAddMakesTheMissingPoolAndGroupAndSaysSo() async throws {
        let directory = try TemporaryDirectory()
        _ = try directory.write(#"{ "auth": { "userPoolId": "us-east-1_Cli" } }"#, to: "stratus.json")
        let data = directory.path("data")
        let list = try await Self.users(["list"], in: directory)
        #expect(try await list.exitStatus() == 1)
        #expect(
            list.standardError
                == "Error: There is no user pool in '\(data)' (no \(data)/cognito.sqlite). Pass --data-dir with the "
                + "data directory of `stratus serve --auth`; `stratus serve --auth --data-dir \(data)` or "
                + "`stratus users add` creates the pool us-east-1_Cli there.\n"
        )
        #expect(!FileManager.default.fileExists(atPath: data))

        let add = try await Self.users(
            ["add", "alice", "--password", "Alice-pass1!", "--group", "Admins"],
            in: directory
        )
        #expect(
            add.standardOutput
                == "Created the user pool us-east-1_Cli in '\(data)'; `stratus serve --auth --data-dir \(data)` "
                + "serves it.\nCreated the group Admins.\nAdded alice to Admins.\n",
            "\(add.standardError)"
        )
        let groups = try await Self.users(["groups", "alice", "--add", "Admins", "--add", "Editors"], in: directory)
        #expect(groups.standardOutput == "Created the group Editors.\nAdmins\nEditors\n", "\(groups.standardError)")

        _ = try await Self.users(["delete", "alice"], in: directory)
        let empty = try await Self.users(["list"], in: directory)
        #expect(
            empty.standardOutput
                == "The user pool us-east-1_Cli in '\(data)' has no users. Add one with: stratus users add <username> "
                + "--password <password>\n",
            "\(empty.standardError)"
        )
    }

    @Test func usernameAttributesLetUsersSignInWithTheirEmail() async throws {
        let directory = try TemporaryDirectory()
        _ = try directory.write(
            #"{ "auth": { "userPoolId": "us-east-1_Cli", "usernameAttributes": ["email"] } }"#,
            to: "stratus.json"
        )
        let add = try await Self.users(["add", "ivy@example.com", "--password", "Ivy-pass1!"], in: directory)
        #expect(try await add.exitStatus() == 0, "\(add.standardError)")
        let list = try await Self.users(["list"], in: directory)
        // The pool names the user by its sub; the email is what the user signs in with.
        let fields = list.standardOutput.split(separator: "\t").map(String.init)
        try #require(fields.count == 3, "\(list.standardOutput)")
        #expect(UUID(uuidString: fields[0]) != nil, "\(list.standardOutput)")
        #expect(fields[1] == "CONFIRMED")
        #expect(fields[2] == "sub=\(fields[0]) email=ivy@example.com\n")
        let refused = try await Self.users(["add", "ivy", "--password", "Ivy-pass1!"], in: directory)
        #expect(try await refused.exitStatus() == 1)
        #expect(refused.standardError == "Error: InvalidParameterException: Username should be an email.\n")

        _ = try directory.write(#"{ "auth": { "usernameAttributes": ["nickname"] } }"#, to: "stratus.json")
        let unknown = try await Self.users(["list"], in: directory)
        #expect(try await unknown.exitStatus() == 1)
        #expect(
            unknown.standardError
                == "Error: auth.usernameAttributes has 'nickname'; use \"email\", \"phone_number\" or both.\n"
        )
    }

    @Test func usersAddRefusesUsernamesCognitoRefusesAndOwnerSeparators() async throws {
        let directory = try TemporaryDirectory()
        _ = try directory.write(Self.config, to: "stratus.json")
        let control = try await Self.users(["add", "eve\u{1}bob", "--password", "Eve-pass1!"], in: directory)
        #expect(try await control.exitStatus() == 1)
        #expect(
            control.standardError
                == #"Error: InvalidParameterException: 1 validation error detected: Value 'eve\u0001bob' at 'username' "#
                + #"failed to satisfy constraint: Member must satisfy regular expression pattern: [\p{L}\p{M}\p{S}\p{N}\p{P}]+"#
                + "\n"
        )
        let separator = try await Self.users(["add", "x::alice", "--password", "Eve-pass1!"], in: directory)
        #expect(try await separator.exitStatus() == 1)
        #expect(
            separator.standardError
                == "Error: InvalidParameterException: Username must not contain '::': the API writes an owner as <sub>::<username>, so such a "
                + "username could pass for another user's. Choose a username without '::'.\n"
        )
    }

    @Test func lockoutsAndClientLimitsOutOfRangeAreRefused() async throws {
        let directory = try TemporaryDirectory()
        for (auth, message) in [
            (
                #"{ "lockoutSeconds": 60, "maxLockoutSeconds": 30 }"#,
                "auth.maxLockoutSeconds is 30.0, shorter than auth.lockoutSeconds (60.0); give the longest lockout, "
                    + "at least the first one."
            ),
            (
                #"{ "requestsPerClient": { "burst": 0, "perSecond": 3 } }"#,
                "auth.requestsPerClient.burst is 0; give how many calls a client may make at once, above 0."
            ),
        ] {
            _ = try directory.write(#"{ "auth": \#(auth) }"#, to: "stratus.json")
            let list = try await Self.users(["list"], in: directory)
            #expect(try await list.exitStatus() == 1)
            #expect(list.standardError == "Error: \(message)\n")
        }
    }

    @Test func clientAttributeListsNameAttributesOfTheSchema() async throws {
        let directory = try TemporaryDirectory()
        for (clients, message) in [
            (
                #"[{ "clientId": "web", "writeAttributes": ["name", "email_verified"] }]"#,
                "auth.clients[0].writeAttributes has 'email_verified', which only the pool (with a code) and the "
                    + "administrator set. Remove it."
            ),
            (
                #"[{ "clientId": "web" }, { "clientId": "app", "readAttributes": ["custom:"] }]"#,
                "auth.clients[1].readAttributes has 'custom:', which is not an attribute of a user pool: give "
                    + "Cognito's standard attributes (email, name, …) or custom:<name> with 1 to 20 characters."
            ),
        ] {
            _ = try directory.write(#"{ "auth": { "clients": \#(clients) } }"#, to: "stratus.json")
            let list = try await Self.users(["list"], in: directory)
            #expect(try await list.exitStatus() == 1)
            #expect(list.standardError == "Error: \(message)\n")
        }
    }

    /// A rule that trusts a `custom:` claim trusts whatever a client lets the user write into it:
    /// `serve` says so at start, naming the rule, the attribute, the clients and the fix.
    @Test func serveWarnsOfRulesOnCustomClaimsClientsMayWrite() async throws {
        let directory = try TemporaryDirectory()
        _ = try directory.write(
            """
            { "auth": { "clients": [{ "clientId": "web" },
                                    { "clientId": "admin", "writeAttributes": ["name"] }] } }
            """,
            to: "stratus.json"
        )
        let schema = try directory.write(
            """
            type Vault @model @auth(rules: [{ allow: groups, groupClaim: "custom:role", groups: ["Admins"] }]) {
              id: ID!
              data: String @auth(rules: [{ allow: groups, groupClaim: "custom:level", groups: ["Top"] }])
            }
            type Memo @model @auth(rules: [{ allow: owner, identityClaim: "custom:tenant" }]) {
              id: ID!
              text: String
            }
            type Mail @model @auth(rules: [{ allow: owner, identityClaim: "email" }]) {
              id: ID!
              text: String
            }
            """,
            to: "schema.graphql"
        )
        let serving = try await ServeCommandTests.Serving(
            [
                "--schema", schema.path, "--config", directory.path("stratus.json"), "--data-dir",
                directory.path("data"),
            ],
            in: directory
        )
        func warning(_ rule: String, of place: String, claim: String) -> String {
            "Warning: the rule \(rule) of \(place) trusts the claim \(claim), which the app client web lets its "
                + "users write (UpdateUserAttributes, SignUp): a user can set it to whatever the rule admits. Leave "
                + "\(claim) out of that client's writeAttributes in stratus.json (auth.clients[].writeAttributes)."
        }
        #expect(
            serving.process.outputLines.filter { $0.hasPrefix("Warning: the rule ") } == [
                warning(#"{allow: groups, groupClaim: "custom:role"}"#, of: "Vault", claim: "custom:role"),
                warning(#"{allow: groups, groupClaim: "custom:level"}"#, of: "Vault.data", claim: "custom:level"),
                warning(#"{allow: owner, identityClaim: "custom:tenant"}"#, of: "Memo", claim: "custom:tenant"),
                // A new email is unverified, but it is in the next token, and the rule does not look.
                warning(#"{allow: owner, identityClaim: "email"}"#, of: "Mail", claim: "email"),
            ]
        )
        await serving.process.stop()
    }

    @Test func serversOnOneDatabaseShareTheUsersTheKeyAndTheTokens() async throws {
        let directory = try TemporaryDirectory()
        let database = try await PostgresTestCluster.shared.makeDatabase()
        let config = Self.config.replacingOccurrences(
            of: #""userPoolId": "us-east-1_Cli","#,
            with: #""userPoolId": "us-east-1_Cli", "publicOrigin": "http://lb.example.com","#
        )
        _ = try directory.write(config, to: "stratus.json")
        let schema = try directory.write(
            "type Note @model @auth(rules: [{allow: owner}]) { id: ID! text: String }",
            to: "schema.graphql"
        )
        // A user added to the database before any server runs.
        let add = try await StratusProcess(
            ["users", "add", "bob", "--password", "Bob-pass1!", "--database", database, "--config", "stratus.json"],
            in: directory.url
        )
        _ = try await add.exitStatus()
        #expect(add.standardOutput == "Added bob.\n", "\(add.standardError)")

        var servers: [ServeCommandTests.Serving] = []
        for output in ["a", "b"] {
            try FileManager.default.createDirectory(
                at: directory.url.appending(path: output),
                withIntermediateDirectories: true
            )
            servers.append(
                try await ServeCommandTests.Serving(
                    [
                        "--schema", schema.path, "--config", "stratus.json", "--database", database,
                        "--config-output", output,
                    ],
                    in: directory
                )
            )
        }
        #expect(
            try await servers[1].process.line(startingWith: "Cognito user pool: ")
                == "Cognito user pool: us-east-1_Cli at http://lb.example.com/ (issuer http://lb.example.com/us-east-1_Cli)"
        )
        // Both servers know the user added beforehand and the configured one, created once.
        let signIn = try await Self.signIn("bob", "Bob-pass1!", port: servers[0].port)
        #expect(signIn.status == 200, "\(signIn.body)")
        #expect(try await Self.signIn("alice", "Alice-pass1!", port: servers[1].port).status == 200)
        let list = try await StratusProcess(
            ["users", "list", "--database", database, "--config", "stratus.json"],
            in: directory.url
        )
        _ = try await list.exitStatus()
        #expect(list.standardOutput.split(separator: "\n").map { $0.split(separator: "\t")[0] } == ["alice", "bob"])

        // A token from one server is good on the other.
        let result = try JSONSerialization.jsonObject(with: Data(signIn.body.utf8)) as? [String: Any]
        let idToken = try #require((result?["AuthenticationResult"] as? [String: Any])?["IdToken"] as? String)
        let created = try await HTTPExchange(
            servers[1].endpoint,
            post: #"{"query":"mutation { createNote(input: {text: \"hi\"}) { text } }"}"#,
            headers: ["Authorization": idToken]
        )
        #expect(created.body == #"{"data":{"createNote":{"text":"hi"}}}"#)
    }
}
