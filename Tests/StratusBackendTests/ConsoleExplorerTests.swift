import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1
import StratusBackend
import StratusCodegen
import StratusCognito
import StratusConsole
import StratusServer
import Testing

/// The Explorer's identities beyond the API key and the user pool's users: IAM (configured
/// credentials, the identity pool's guest and users), OIDC and Lambda authorizer tokens, and
/// the headers `POST /console/api/credentials` hands the page for real-time connections.
@Suite struct ConsoleExplorerTests {
    /// Notes any IAM caller may use, secrets only signed-in IAM callers, and tokens a Lambda
    /// authorizer lets in.
    static let schema = """
        type Note @model @auth(rules: [{ allow: public }, { allow: public, provider: iam }, { allow: private, provider: iam }, { allow: custom }]) {
          id: ID!
          text: String
        }
        type Secret @model @auth(rules: [{ allow: private, provider: iam }]) { id: ID! text: String }
        """
    static let secret = "console-explorer-secret"
    static let iamKey = IAMCredential(accessKeyId: "AKIDCONSOLE", secretAccessKey: "console-secret-key")

    /// A backend with the console, the modes `modes` (after the API key), the local Cognito when
    /// `cognito`, and a Lambda authorizer that lets `let-me-in` in when `lambda`.
    static func serve(
        modes: [Identity.AuthorizationMode],
        cognito: Bool = false,
        lambda: Bool = false,
        iamCredentials: [IAMCredential] = []
    ) async throws -> ConsoleTests.Served {
        let letsIn: @Sendable (String) async throws -> LambdaAuthorization = { token in
            LambdaAuthorization(isAuthorized: token == "let-me-in", resolverContext: ["who": "lambda"])
        }
        let authorizer = lambda ? letsIn : nil
        return try await ConsoleTests.Served(
            schema: schema,
            secret: secret,
            authorization: ServerAuthorization(
                defaultMode: .apiKey,
                additionalModes: modes,
                iamCredentials: iamCredentials,
                lambdaAuthorizer: authorizer
            ),
            cognito: cognito
        )
    }

    static func post(
        _ served: ConsoleTests.Served,
        _ path: String,
        _ body: String
    ) async throws -> (
        status: Int, body: String
    ) {
        let answer = try await served.send(
            .POST,
            path,
            body: body,
            headers: [("authorization", "Bearer \(Self.secret)")]
        )
        return (answer.status, answer.body)
    }

    static func graphQL(
        _ served: ConsoleTests.Served,
        _ query: String,
        as identity: String
    ) async throws -> (
        status: Int, body: String
    ) {
        try await post(served, "/console/api/graphql", #"{"query":"\#(query)","identity":\#(identity)}"#)
    }

    /// The Explorer's Headers field: an `Idempotency-Key` sent twice creates once and answers
    /// the same; a header that would carry credentials, or that is not text, is refused.
    @Test func graphQLSendsTheHeadersGivenBesidesTheIdentitys() async throws {
        let served = try await ConsoleTests.Served(secret: Self.secret)
        let create =
            #"{"query":"mutation { createNote(input: {text: \"once\"}) { id text } }","#
            + #""identity":{"type":"API_KEY"},"headers":{"Idempotency-Key":"console-17"}}"#
        let first = try await Self.post(served, "/console/api/graphql", create)
        let again = try await Self.post(served, "/console/api/graphql", create)
        let listed = try await Self.graphQL(served, "{ listNotes { items { text } } }", as: #"{"type":"API_KEY"}"#)
        let credentials = try await Self.post(
            served,
            "/console/api/graphql",
            #"{"query":"{ listNotes { items { id } } }","headers":{"X-Api-Key":"da2-other"}}"#
        )
        let number = try await Self.post(
            served,
            "/console/api/graphql",
            #"{"query":"{ listNotes { items { id } } }","headers":{"X-Count":3}}"#
        )
        await served.stop()
        #expect(first.status == 200)
        #expect(again.body == first.body)
        #expect(listed.body == #"{"status":200,"response":{"data":{"listNotes":{"items":[{"text":"once"}]}}}}"#)
        #expect(credentials.status == 400)
        #expect(
            credentials.body
                == #"{"errors":[{"errorType":"BadRequestException","message":"The header 'X-Api-Key' carries "#
                + #"credentials, which the identity chosen in Run as gives. Remove it, and choose the identity "#
                + #"instead."}]}"#
        )
        #expect(number.status == 400)
        #expect(
            number.body
                == #"{"errors":[{"errorType":"BadRequestException","message":"The header 'X-Count' is not a string. "#
                + #"Give each as text: \"headers\": {\"Idempotency-Key\": \"order-17\"}."}]}"#
        )
    }

    /// The identity pool's guest and a signed-in user, each signing with the credentials the pool
    /// issues them: the guest is refused what only signed-in IAM callers may read.
    @Test func graphQLRunsAsIdentityPoolGuestsAndUsersWithSignedRequests() async throws {
        let served = try await Self.serve(modes: [.amazonCognitoUserPools, .awsIAM], cognito: true)
        let pool = try #require(served.backend.cognito)
        try await pool.addUser(username: "alice", password: "Alice-pass1!")
        let guest = #"{"type":"AWS_IAM","identityPool":"guest"}"#
        let alice = #"{"type":"AWS_IAM","identityPool":"user","username":"alice"}"#
        let guestNote = try await Self.graphQL(
            served,
            #"mutation { createNote(input: {id: \"g1\", text: \"guest\"}) { id text } }"#,
            as: guest
        )
        let guestSecrets = try await Self.graphQL(served, "{ listSecrets { items { id } } }", as: guest)
        let aliceSecret = try await Self.graphQL(
            served,
            #"mutation { createSecret(input: {id: \"s1\", text: \"alice\"}) { id text } }"#,
            as: alice
        )
        // A second run reuses the credentials the pool issued, while they hold.
        let aliceAgain = try await Self.graphQL(served, "{ listSecrets { items { id text } } }", as: alice)
        let nobody = try await Self.graphQL(
            served,
            "{ listNotes { items { id } } }",
            as: #"{"type":"AWS_IAM","identityPool":"user","username":"carol"}"#
        )
        let identities = try await served.send(
            .GET,
            "/console/api/identities",
            headers: [("authorization", "Bearer \(Self.secret)")]
        )
        let history = try #require(served.backend.http.requestHistory).records
        await served.stop()
        #expect(guestNote.body == #"{"status":200,"response":{"data":{"createNote":{"id":"g1","text":"guest"}}}}"#)
        #expect(guestSecrets.status == 200)
        #expect(guestSecrets.body.contains(#""errorType":"Unauthorized""#), "\(guestSecrets.body)")
        #expect(aliceSecret.body == #"{"status":200,"response":{"data":{"createSecret":{"id":"s1","text":"alice"}}}}"#)
        #expect(
            aliceAgain.body
                == #"{"status":200,"response":{"data":{"listSecrets":{"items":[{"id":"s1","text":"alice"}]}}}}"#
        )
        #expect(nobody.status == 400)
        #expect(nobody.body.contains("Cannot run as identity-pool user 'carol'"), "\(nobody.body)")
        #expect(history.filter { $0.authorizationMode == "AWS_IAM" }.count == 4)
        #expect(
            identities.body
                == #"{"defaultMode":"API_KEY","identities":[{"type":"API_KEY","label":"API key"},"#
                + #"{"type":"AMAZON_COGNITO_USER_POOLS","username":"alice","label":"Cognito user alice"},"#
                + #"{"type":"AWS_IAM","identityPool":"guest","label":"IAM: identity-pool guest"},"#
                + #"{"type":"AWS_IAM","identityPool":"user","username":"alice","label":"IAM: identity-pool user alice"}]}"#
        )
    }

    /// A configured IAM credential signs the request; a Lambda token goes to the authorizer.
    @Test func graphQLRunsAsAnIAMCredentialAndALambdaToken() async throws {
        let served = try await Self.serve(modes: [.awsIAM, .function], lambda: true, iamCredentials: [Self.iamKey])
        let signed = try await Self.graphQL(
            served,
            #"mutation { createNote(input: {id: \"k1\", text: \"signed\"}) { id text } }"#,
            as: #"{"type":"AWS_IAM","accessKeyId":"AKIDCONSOLE"}"#
        )
        let token = try await Self.graphQL(
            served,
            "{ listNotes { items { id text } } }",
            as: #"{"type":"AWS_LAMBDA","token":"let-me-in"}"#
        )
        let refused = try await Self.graphQL(
            served,
            "{ listNotes { items { id } } }",
            as: #"{"type":"AWS_LAMBDA","token":"wrong"}"#
        )
        // The Data page's generated items go through the same signing.
        let generated = try await served.send(
            .POST,
            "/console/api/generate",
            body: #"{"model":"Note","count":2,"seed":7,"identity":{"type":"AWS_IAM","accessKeyId":"AKIDCONSOLE"}}"#,
            headers: [("authorization", "Bearer \(Self.secret)")]
        )
        let identities = try await served.send(
            .GET,
            "/console/api/identities",
            headers: [("authorization", "Bearer \(Self.secret)")]
        )
        await served.stop()
        #expect(signed.body == #"{"status":200,"response":{"data":{"createNote":{"id":"k1","text":"signed"}}}}"#)
        let made = try JSON(parsing: generated.body)
        #expect(generated.status == 200)
        #expect(made["created"] == 2, "\(generated.body)")
        #expect(made["refusals"] == [])
        #expect(
            token.body == #"{"status":200,"response":{"data":{"listNotes":{"items":[{"id":"k1","text":"signed"}]}}}}"#
        )
        #expect(
            refused.body
                == #"{"status":401,"response":{"errors":[{"errorType":"UnauthorizedException","#
                + #""message":"You are not authorized to make this call."}]}}"#
        )
        #expect(
            identities.body
                == #"{"defaultMode":"API_KEY","identities":[{"type":"API_KEY","label":"API key"},"#
                + #"{"type":"AWS_IAM","accessKeyId":"AKIDCONSOLE","label":"IAM credential AKIDCONSOLE"},"#
                + #"{"type":"AWS_LAMBDA","needsToken":true,"label":"Lambda authorizer token","#
                + #""tokenHint":"The token the authorizer decides on, sent as the authorization header."}]}"#
        )
    }

    /// The backend's own OIDC provider: the console signs tokens of the claims typed, which the
    /// API accepts as OPENID_CONNECT callers, so two subjects of an owner rule each see their
    /// own notes; claims without a subject are refused with the fix.
    @Test func graphQLRunsAsTypedClaimsOfTheLocalProvider() async throws {
        let served = try await ConsoleTests.Served(
            schema: """
                type Memo @model @auth(rules: [{ allow: owner, provider: oidc, identityClaim: "sub" }]) {
                  id: ID!
                  text: String
                }
                """,
            secret: Self.secret,
            authorization: ServerAuthorization(
                defaultMode: .apiKey,
                additionalModes: [.openIDConnect],
                openIDConnect: OIDCAuthorization(issuer: "stratus-local", clientId: "web", jwks: .json(#"{"keys":[]}"#))
            ),
            localOpenIDConnect: true
        )
        let alice = #"{"type":"OPENID_CONNECT","claims":{"sub":"alice"}}"#
        let bob = #"{"type":"OPENID_CONNECT","claims":{"sub":"bob","groups":["staff"]}}"#
        let created = [
            try await Self.graphQL(served, #"mutation { createMemo(input: {id: \"a1\"}) { id owner } }"#, as: alice),
            try await Self.graphQL(served, #"mutation { createMemo(input: {id: \"b1\"}) { id owner } }"#, as: bob),
        ]
        let seenByAlice = try await Self.graphQL(served, "{ listMemos { items { id } } }", as: alice)
        let seenByBob = try await Self.graphQL(served, "{ listMemos { items { id } } }", as: bob)
        let noSubject = try await Self.graphQL(
            served,
            "{ listMemos { items { id } } }",
            as: #"{"type":"OPENID_CONNECT","claims":{"name":"nobody"}}"#
        )
        let credentials = try await Self.post(served, "/console/api/credentials", #"{"identity":\#(bob)}"#)
        let identities = try await served.send(
            .GET,
            "/console/api/identities",
            headers: [("authorization", "Bearer \(Self.secret)")]
        )
        let keyFile = served.directory.appending(path: "oidc-signing-key")
        let keptKey = FileManager.default.fileExists(atPath: keyFile.path)
        await served.stop()
        #expect(
            created.map(\.body) == [
                #"{"status":200,"response":{"data":{"createMemo":{"id":"a1","owner":"alice"}}}}"#,
                #"{"status":200,"response":{"data":{"createMemo":{"id":"b1","owner":"bob"}}}}"#,
            ]
        )
        #expect(seenByAlice.body == #"{"status":200,"response":{"data":{"listMemos":{"items":[{"id":"a1"}]}}}}"#)
        #expect(seenByBob.body == #"{"status":200,"response":{"data":{"listMemos":{"items":[{"id":"b1"}]}}}}"#)
        #expect(noSubject.status == 400)
        #expect(noSubject.body.contains(#"OIDC claims name their subject: \"sub\": \"alice\""#), "\(noSubject.body)")
        // The token carries the claims typed, the provider's issuer, the client as audience and an
        // expiry an hour after it was issued.
        let token = try #require(try JSON(parsing: credentials.body)["headers"]?["authorization"]?.stringValue)
        var segment = token.split(separator: ".")[1].replacing("-", with: "+").replacing("_", with: "/")
        segment += String(repeating: "=", count: (4 - segment.count % 4) % 4)
        let payload = try #require(Data(base64Encoded: String(segment)))
        let claims = try JSON(parsing: payload)
        #expect(claims["sub"] == "bob")
        #expect(claims["groups"] == ["staff"])
        #expect(claims["iss"] == "stratus-local")
        #expect(claims["aud"] == "web")
        #expect((claims["exp"]?.intValue ?? 0) - (claims["iat"]?.intValue ?? 0) == 3600)
        #expect(
            identities.body.contains(
                #"{"type":"OPENID_CONNECT","needsClaims":true,"label":"OIDC claims (local provider stratus-local)""#
            )
        )
        #expect(keptKey)
    }

    /// Each identity the console cannot run as, and why: the exact refusal.
    static let refusals: [(identity: String, message: String)] = [
        (
            #"{"type":"AWS_IAM","identityPool":"guest"}"#,
            "The API does not accept AWS_IAM (its modes: API_KEY, OPENID_CONNECT, AWS_LAMBDA). Add AWS_IAM to "
                + "authorization.additionalModes in the configuration file, or choose another identity."
        ),
        (
            #"{"type":"AMAZON_COGNITO_USER_POOLS","username":"alice"}"#,
            "The API does not accept AMAZON_COGNITO_USER_POOLS (its modes: API_KEY, OPENID_CONNECT, AWS_LAMBDA). Add "
                + "AMAZON_COGNITO_USER_POOLS to authorization.additionalModes in the configuration file, or choose "
                + "another identity."
        ),
        (
            #"{"type":"OPENID_CONNECT"}"#,
            #"An OPENID_CONNECT identity carries a token of the provider: "token": "…". Type it beside Run as."#
        ),
        (
            #"{"type":"AWS_LAMBDA","token":"let-me-in"}"#,
            "The API accepts AWS_LAMBDA, but no Lambda authorizer is configured, so every token is refused: configure "
                + "one (authorization.lambdaAuthorizer in the configuration file) to run as a Lambda token."
        ),
        (
            #"{"type":"AWS_LAMBDA"}"#,
            #"An AWS_LAMBDA identity carries the token the Lambda authorizer decides on: "token": "…". "#
                + "Type it beside Run as."
        ),
    ]

    @Test(arguments: refusals.indices) func anIdentityTheConsoleCannotRunAsIsRefusedWithTheFix(index: Int) async throws
    {
        let served = try await ConsoleTests.Served(
            schema: Self.schema,
            secret: Self.secret,
            authorization: ServerAuthorization(defaultMode: .apiKey, additionalModes: [.openIDConnect, .function])
        )
        let (identity, message) = Self.refusals[index]
        let run = try await Self.graphQL(served, "{ listNotes { items { id } } }", as: identity)
        let credentials = try await Self.post(served, "/console/api/credentials", #"{"identity":\#(identity)}"#)
        await served.stop()
        let expected = JSON.object([
            "errors": [["errorType": "BadRequestException", "message": .string(message)]]
        ]).text
        #expect(run.status == 400)
        #expect(run.body == expected)
        #expect(credentials.status == 400)
        #expect(credentials.body == expected)
    }

    /// IAM without credentials to sign with, and an OIDC provider whose keys the console lacks,
    /// are listed with why and the fix.
    @Test func identitiesSayWhyAModeCannotBeRunAs() async throws {
        let served = try await ConsoleTests.Served(
            schema: Self.schema,
            secret: Self.secret,
            authorization: ServerAuthorization(defaultMode: .apiKey, additionalModes: [.awsIAM, .function])
        )
        let identities = try await served.send(
            .GET,
            "/console/api/identities",
            headers: [("authorization", "Bearer \(Self.secret)")]
        )
        await served.stop()
        #expect(
            identities.body
                == #"{"defaultMode":"API_KEY","identities":[{"type":"API_KEY","label":"API key"},"#
                + #"{"type":"AWS_IAM","label":"IAM (unavailable)","unavailable":"The API accepts AWS_IAM, but the "#
                + #"console has no credentials to sign with: add authorization.iamCredentials to the configuration "#
                + #"file, or start stratus serve with --auth for the local identity pool."},"#
                + #"{"type":"AWS_LAMBDA","label":"Lambda authorizer (unavailable)","unavailable":"The API accepts "#
                + #"AWS_LAMBDA, but no Lambda authorizer is configured, so every token is refused: configure one "#
                + #"(authorization.lambdaAuthorizer in the configuration file) to run as a Lambda token."}]}"#
        )
    }

    /// The header object of a real-time connection: the API key as is; an IAM signature of the
    /// exact request, which the API accepts when sent with it.
    @Test func credentialsGiveTheHeadersOfARequestAsTheIdentity() async throws {
        let served = try await Self.serve(modes: [.awsIAM], iamCredentials: [Self.iamKey])
        let host = "127.0.0.1:\(served.serving.port)"
        let key = try await Self.post(
            served,
            "/console/api/credentials",
            #"{"identity":{"type":"API_KEY"},"path":"/graphql/connect","body":"{}"}"#
        )
        let body = #"{"query":"{ listNotes { items { id } } }"}"#
        let signed = try await Self.post(
            served,
            "/console/api/credentials",
            JSON.object([
                "identity": ["type": "AWS_IAM", "accessKeyId": "AKIDCONSOLE"], "path": "/graphql",
                "body": .string(body),
            ]).text
        )
        let headers = try #require(try JSON(parsing: signed.body)["headers"]?.objectValue)
        var request = [(String, String)]()
        for (name, value) in headers where name != "host" && name != "content-type" {
            request.append((name, try #require(value.stringValue)))
        }
        let sent = try await served.send(.POST, "/graphql", body: body, headers: request)
        let badPath = try await Self.post(served, "/console/api/credentials", #"{"path":"/other"}"#)
        await served.stop()
        let apiKey = try #require(served.backend.http.authorization.apiKeys.first?.value)
        #expect(key.body == #"{"headers":{"host":"\#(host)","x-api-key":"\#(apiKey)"}}"#)
        #expect(headers["authorization"]?.stringValue?.hasPrefix("AWS4-HMAC-SHA256 Credential=AKIDCONSOLE/") == true)
        #expect(headers["host"]?.stringValue == host)
        #expect(sent.status == 200)
        #expect(sent.body == #"{"data":{"listNotes":{"items":[]}}}"#)
        #expect(badPath.status == 400)
        #expect(
            badPath.body
                == #"{"errors":[{"errorType":"BadRequestException","message":"The path '/other' is not one the console "#
                + #"signs for: use /graphql (a subscription's start) or /graphql/connect (a real-time connection)."}]}"#
        )
    }
}
