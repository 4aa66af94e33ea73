import Foundation
import StratusServer
import Testing

/// Hand-written queries and mutations: `null` without a resolver (with a start-up notice that
/// says how to attach one), NONE data sources, and functions run as commands, with AppSync's
/// event and error shapes.
@Suite struct CustomResolverTests {
    static let schema = """
        type Note @model { id: ID! text: String }
        type Weather { summary: String city: String }
        type Message { channel: String! text: String! }
        type Query {
          weather(city: String!): Weather
          echo(text: String): String @function(name: "echo-${env}") @function(name: "shout-${env}")
          hello: String
        }
        type Mutation {
          publish(channel: String!, text: String!): Message
        }
        type Subscription {
          onPublish(channel: String): Message @aws_subscribe(mutations: ["publish"])
        }
        """

    /// A directory with `files` written into it, removed by the caller.
    static func directory(_ files: [String: String]) throws -> URL {
        let directory = temporaryDirectory()
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        for (name, text) in files {
            try Data(text.utf8).write(to: directory.appending(path: name))
        }
        return directory
    }

    static func command(_ script: String, in directory: URL, timeout: Duration = .seconds(20)) -> LocalFunction {
        LocalFunction(handler: .command(["python3", script]), workingDirectory: directory, timeout: timeout)
    }

    @Test func aFieldWithoutAResolverAnswersNullAndServeSaysHowToAttachOne() async throws {
        let server = try await TestServer(Self.schema)
        #expect(
            await server.run("{ hello weather(city: \"Oslo\") { summary } }")
                == #"{"data":{"hello":null,"weather":null}}"#
        )
        #expect(
            server.server.resolverNotices == [
                "Query.echo calls the functions 'echo', 'shout', which stratus.json does not configure, so it answers "
                    + #"null. Add "functions": {"echo": {"runtime": ["python3", "-m", "awslambdaric", "index.handler"]}} "#
                    + #"(or "command")."#,
                "No resolver for Query.weather, Query.hello, Mutation.publish: they answer null, as in AppSync. Attach one "
                    + #"in stratus.json: "resolvers": {"Query.weather": {"function": "name-dev"}} with "functions": "#
                    + #"{"name-dev": {"command": ["python3", "handler.py"]}}, or {"dataSource": "NONE"} for a mutation "#
                    + "that returns its arguments.",
            ]
        )
    }

    @Test func aNoneDataSourceAnswersTheArguments() async throws {
        let server = try await TestServer(
            Self.schema,
            configuration: ServerConfiguration(resolvers: ["Mutation.publish": .none])
        )
        #expect(
            await server.run(#"mutation { publish(channel: "news", text: "hi") { channel text } }"#)
                == #"{"data":{"publish":{"channel":"news","text":"hi"}}}"#
        )
    }

    @Test func aLambdaResolverReceivesAppSyncsContextObject() async throws {
        let directory = try Self.directory([
            "weather.py": """
            import json, sys
            event = sys.stdin.read()
            open("event.json", "w").write(event)
            city = json.loads(event)["arguments"]["city"]
            print(json.dumps({"summary": "Sunny in " + city, "city": city}))
            """
        ])
        defer { try? FileManager.default.removeItem(at: directory) }
        let server = try await TestServer(
            Self.schema,
            configuration: ServerConfiguration(
                functions: ["weather-dev": Self.command("weather.py", in: directory)],
                resolvers: ["Query.weather": .function("weather-dev")]
            )
        )
        #expect(
            await server.run(
                "query Weather($city: String!) { weather(city: $city) { summary city } }",
                ["city": "Oslo"]
            ) == #"{"data":{"weather":{"summary":"Sunny in Oslo","city":"Oslo"}}}"#
        )
        let event = try String(contentsOf: directory.appending(path: "event.json"), encoding: .utf8)
        #expect(
            event == #"{"arguments":{"city":"Oslo"},"identity":null,"source":null,"#
                + #""request":{"headers":{},"domainName":null},"prev":null,"#
                + #""info":{"fieldName":"weather","parentTypeName":"Query","variables":{"city":"Oslo"},"#
                + #""selectionSetList":["summary","city"],"selectionSetGraphQL":"{\n  summary\n  city\n}"},"#
                + #""stash":{}}"#
        )
    }

    @Test func functionsOnOneFieldRunAsAPipeline() async throws {
        let directory = try Self.directory([
            "echo.py": """
            import json, sys
            event = json.load(sys.stdin)
            json.dump(event, open("echo-event.json", "w"))
            print(json.dumps(event["arguments"]["text"] + "!"))
            """,
            "shout.py": """
            import json, sys
            event = json.load(sys.stdin)
            json.dump(event, open("shout-event.json", "w"))
            print(json.dumps(event["prev"]["result"].upper()))
            """,
        ])
        defer { try? FileManager.default.removeItem(at: directory) }
        let server = try await TestServer(
            Self.schema,
            configuration: ServerConfiguration(
                environmentName: "dev",
                functions: [
                    "echo-dev": Self.command("echo.py", in: directory),
                    "shout-dev": Self.command("shout.py", in: directory),
                ]
            )
        )
        #expect(server.server.resolverNotices.count == 1)
        #expect(await server.run(#"{ echo(text: "hi") }"#) == #"{"data":{"echo":"HI!"}}"#)
        let first = try String(contentsOf: directory.appending(path: "echo-event.json"), encoding: .utf8)
        #expect(
            first == #"{"typeName": "Query", "fieldName": "echo", "arguments": {"text": "hi"}, "identity": null, "#
                + #""source": null, "request": {"headers": {}, "domainName": null}, "prev": {"result": {}}}"#
        )
        let second = try JSON(
            parsing: String(contentsOf: directory.appending(path: "shout-event.json"), encoding: .utf8)
        )
        #expect(second["prev"] == ["result": "hi!"])
    }

    @Test func aHandlersErrorBecomesLambdaUnhandled() async throws {
        let directory = try Self.directory([
            "fail.py": """
            import json, sys
            sys.stdin.read()
            print(json.dumps({"errorMessage": "No weather for Atlantis", "errorType": "NotFound"}))
            sys.exit(1)
            """,
            "crash.py": "import sys\nsys.stdin.read()\nsys.stderr.write('secret path /srv/app\\n')\nsys.exit(3)",
            "slow.py": "import time\ntime.sleep(30)",
            "garbage.py": "print('not json')",
        ])
        defer { try? FileManager.default.removeItem(at: directory) }
        let log = LogRecorder()
        for (script, message) in [
            ("fail.py", "No weather for Atlantis"),
            ("crash.py", "Runtime exited with error: exit status 3"),
            ("slow.py", "Task timed out after 0.50 seconds"),
            ("garbage.py", "The function's response is not valid JSON."),
        ] {
            let server = try await TestServer(
                Self.schema,
                configuration: ServerConfiguration(
                    functions: [
                        "weather-dev": Self.command(
                            script,
                            in: directory,
                            timeout: script == "slow.py" ? .milliseconds(500) : .seconds(20)
                        )
                    ],
                    resolvers: ["Query.weather": .function("weather-dev")]
                )
            )
            #expect(
                await server.run(#"{ weather(city: "Atlantis") { summary } }"#)
                    == #"{"data":{"weather":null},"errors":[{"path":["weather"],"data":null,"errorType":"Lambda:Unhandled","#
                    + #""errorInfo":null,"locations":[{"line":1,"column":3,"sourceName":null}],"message":""#
                    + message + #""}]}"#
            )
            for line in server.log.messages { log.record(line) }
        }
        // The client learns nothing of the command; the log has it.
        #expect(log.messages.contains { $0.contains("exited with status 3: secret path /srv/app") })
    }

    /// Callers of each mode and the `identity` their functions receive.
    static let identities: [(Identity, String)] = {
        let userPool: JSONObject = [
            "sub": "u-1", "iss": "https://cognito-idp.us-east-1.amazonaws.com/us-east-1_Abc",
            "cognito:username": "alice", "cognito:groups": ["admins"],
        ]
        let userPoolIdentity: String =
            #"{"sub":"u-1","issuer":"https://cognito-idp.us-east-1.amazonaws.com/us-east-1_Abc","username":"alice","#
            + #""claims":{"sub":"u-1","iss":"https://cognito-idp.us-east-1.amazonaws.com/us-east-1_Abc","#
            + #""cognito:username":"alice","cognito:groups":["admins"]},"sourceIp":[],"#
            + #""defaultAuthStrategy":"ALLOW","groups":["admins"]}"#
        let iam: JSONObject = [
            "cognitoIdentityPoolId": "us-east-1:pool", "cognitoIdentityId": "us-east-1:id-1",
            "cognitoIdentityAuthType": "unauthenticated",
        ]
        let iamIdentity: String =
            #"{"accountId":null,"cognitoIdentityPoolId":"us-east-1:pool","cognitoIdentityId":"us-east-1:id-1","#
            + #""sourceIp":[],"username":null,"userArn":null,"cognitoIdentityAuthType":"unauthenticated","#
            + #""cognitoIdentityAuthProvider":null}"#
        let oidc: JSONObject = ["sub": "o-1", "iss": "https://idp.example.com"]
        let oidcIdentity: String =
            #"{"sub":"o-1","issuer":"https://idp.example.com","claims":{"sub":"o-1","iss":"https://idp.example.com"}}"#
        return [
            (Identity(authorizationMode: .amazonCognitoUserPools, claims: userPool), userPoolIdentity),
            (Identity(authorizationMode: .awsIAM, claims: iam), iamIdentity),
            (Identity(authorizationMode: .openIDConnect, claims: oidc), oidcIdentity),
            (Identity(authorizationMode: .function, claims: ["tenant": "t1"]), #"{"resolverContext":{"tenant":"t1"}}"#),
            (Identity.apiKey, "null"),
        ]
    }()

    @Test(arguments: identities)
    func theCallersIdentityReachesTheFunctionInAppSyncsShape(identity: Identity, expected: String) async throws {
        let directory = try Self.directory([
            "who.py": """
            import json, sys
            event = sys.stdin.read()
            open("event.json", "w").write(event)
            print(json.dumps({"summary": "ok"}))
            """
        ])
        defer { try? FileManager.default.removeItem(at: directory) }
        let server = try await TestServer(
            Self.schema,
            configuration: ServerConfiguration(
                functions: ["who": Self.command("who.py", in: directory)],
                resolvers: ["Query.weather": .function("who")]
            )
        )
        #expect(
            await server.run(#"{ weather(city: "Oslo") { summary } }"#, identity: identity)
                == #"{"data":{"weather":{"summary":"ok"}}}"#
        )
        let event = try String(contentsOf: directory.appending(path: "event.json"), encoding: .utf8)
        #expect(event.contains(#""identity":"# + expected + #","source":"#), "\(event)")
    }

    @Test func awsAuthDirectivesGuardHandWrittenFields() async throws {
        let server = try await TestServer(
            """
            type Note @model { id: ID! }
            type Query { secret: String @aws_cognito_user_pools }
            """,
            configuration: ServerConfiguration(resolvers: [:])
        )
        let body = await server.json("{ secret }")
        #expect(body["errors"]?[0]?["errorType"] == "Unauthorized")
        #expect(body["errors"]?[0]?["message"] == "Not Authorized to access secret on type Query")
    }

    @Test func resolversMustNameHandWrittenFieldsAndConfiguredFunctions() async throws {
        await #expect {
            _ = try await TestServer(
                Self.schema,
                configuration: ServerConfiguration(resolvers: ["Query.weathr": .none])
            )
        } throws: { error in
            "\(error)".hasPrefix(
                "resolvers names 'Query.weathr', which is neither a hand-written query or mutation of the schema "
                    + "nor a field of one of its types that no relation resolves. Name fields as Type.field "
                    + "(Query.weather, Post.summary). Its hand-written queries and mutations are: Query.weather, "
                    + "Query.echo, Query.hello, Mutation.publish."
            )
        }
        await #expect {
            _ = try await TestServer(
                Self.schema,
                configuration: ServerConfiguration(resolvers: ["Query.weather": .function("weather-dev")])
            )
        } throws: { error in
            "\(error)"
                == "resolvers.Query.weather names the function 'weather-dev', which functions does not configure. "
                + #"Add "functions": {"weather-dev": {"command": ["python3", "handler.py"]}}."#
        }
    }
}

/// What a function learns of an HTTP request: its headers and the caller's address.
@Suite struct FunctionRequestTests {
    @Test func anIAMCallersIdentityCarriesItsAddressesAndTheHeaders() async throws {
        let directory = try CustomResolverTests.directory([
            "who.py": """
            import json, sys
            event = json.load(sys.stdin)
            print(json.dumps({"summary": json.dumps([event["identity"], event["request"]["headers"]["x-forwarded-for"]])}))
            """
        ])
        defer { try? FileManager.default.removeItem(at: directory) }
        let configuration = ServerConfiguration(
            functions: ["who": CustomResolverTests.command("who.py", in: directory)],
            resolvers: ["Query.weather": .function("who")]
        )
        // IAM is an additional mode of the endpoint: the field names it, as AppSync requires.
        let schema = CustomResolverTests.schema.replacingOccurrences(
            of: "weather(city: String!): Weather\n",
            with: "weather(city: String!): Weather @aws_api_key @aws_iam\n"
        )
        try await HTTPEndpointTests.withEndpoint(schema: schema, configuration: configuration) { url in
            let key = HTTPEndpointTests.accessKey
            func signed(_ body: String) -> [String: String] {
                SignedRequests.httpHeaders(
                    body,
                    to: url,
                    headers: ["content-type": "application/json", "x-forwarded-for": "203.0.113.9"]
                )
            }
            // A hand-written field without directives admits the default mode (API keys) alone.
            let hello = #"{"query":"{ hello }"}"#
            let refused = try await HTTPEndpointTests.send(url, body: hello, headers: signed(hello))
            #expect(
                refused.body
                    == #"{"data":{"hello":null},"errors":[{"path":["hello"],"data":null,"errorType":"Unauthorized","#
                    + #""errorInfo":null,"locations":[{"line":1,"column":3,"sourceName":null}],"#
                    + #""message":"Not Authorized to access hello on type Query"}]}"#
            )
            let body = #"{"query":"{ weather(city: \"Oslo\") { summary } }"}"#
            let answer = try await HTTPEndpointTests.send(url, body: body, headers: signed(body))
            let summary = try #require(try JSON(parsing: answer.body)["data"]?["weather"]?["summary"]?.stringValue)
            #expect(
                try JSON(parsing: summary)
                    == [
                        [
                            "accountId": nil, "cognitoIdentityPoolId": nil, "cognitoIdentityId": nil,
                            "sourceIp": ["203.0.113.9", "127.0.0.1"], "username": .string(key.accessKeyId),
                            "userArn": nil, "cognitoIdentityAuthType": nil, "cognitoIdentityAuthProvider": nil,
                        ],
                        "203.0.113.9",
                    ]
            )
        }
    }
}
