import AWSWire
import Foundation
import StratusCodegen
import StratusServer
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The HTTP endpoint over a real socket: §4's error table, API keys, SigV4 and limits.
@Suite struct HTTPEndpointTests {
    static let accessKey = IAMCredential(
        accessKeyId: "AKIDLOCALTEST",
        secretAccessKey: "local/secret/key",
        sessionToken: "session-1"
    )

    /// A running endpoint on a free port, stopped at the end of `body`.
    static func withEndpoint(
        authorization: ServerAuthorization = ServerAuthorization(
            defaultMode: .apiKey,
            additionalModes: [.awsIAM],
            apiKeys: [
                APIKey(value: "da2-valid"), APIKey(value: "da2-expired", expires: Date(timeIntervalSince1970: 0)),
            ],
            iamCredentials: [accessKey]
        ),
        limits: ServerLimits = ServerLimits(),
        schema source: String = postSchemaForEveryMode,
        configuration: ServerConfiguration = ServerConfiguration(),
        restAPIs: [RESTAPI] = [],
        allowedHosts: [String] = [],
        clock: @escaping @Sendable () -> Date = { Date() },
        requestHistory: RequestHistory? = nil,
        _ body: (URL) async throws -> Void
    ) async throws {
        let directory = FileManager.default.temporaryDirectory.appending(path: "stratus-http-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let schema = try SchemaParser().parse(source)
        let server = try await TestStore.server(schema: schema, configuration: configuration, directory: directory)
        let http = StratusHTTPServer(
            server: server,
            authorization: authorization,
            limits: limits,
            restAPIs: restAPIs,
            allowedHosts: allowedHosts,
            clock: clock,
            log: { _ in },
            requestHistory: requestHistory
        )
        let (ports, continuation) = AsyncStream.makeStream(of: Int.self)
        let task = Task { try await http.run(port: 0) { continuation.yield($0) } }
        defer { task.cancel() }
        var iterator = ports.makeAsyncIterator()
        let port = try #require(await iterator.next())
        try await body(URL(string: "http://127.0.0.1:\(port)/graphql")!)
        task.cancel()
        _ = await task.result
        try server.close()
    }

    static func send(
        _ url: URL,
        method: String = "POST",
        body: String?,
        headers: [String: String] = [:]
    ) async throws -> (status: Int, body: String) {
        let response = try await exchange(url, method: method, body: body, headers: headers)
        return (response.status, response.body)
    }

    /// Sends a request and returns the status, the headers (lower-cased names) and the body.
    static func exchange(
        _ url: URL,
        method: String = "POST",
        body: String?,
        headers: [String: String] = [:]
    ) async throws -> (status: Int, headers: [String: String], body: String) {
        var request = URLRequest(url: url)
        request.httpMethod = method
        request.httpBody = body.map { Data($0.utf8) }
        for (name, value) in headers { request.setValue(value, forHTTPHeaderField: name) }
        let (data, response) = try await URLSession.shared.data(for: request)
        let http = response as? HTTPURLResponse
        var fields: [String: String] = [:]
        for (name, value) in http?.allHeaderFields ?? [:] {
            if let name = name as? String, let value = value as? String { fields[name.lowercased()] = value }
        }
        return (http?.statusCode ?? 0, fields, String(decoding: data, as: UTF8.self))
    }

    @Test(
        arguments: [
            (
                "", 400,
                #"{"errors":[{"errorType":"MalformedHttpRequestException","message":"Request body is empty."}]}"#
            ),
            (
                "{}", 400,
                #"{"errors":[{"errorType":"MalformedHttpRequestException","message":"Unable to parse GraphQL query."}]}"#
            ),
            (
                "[]", 400,
                #"{"errors":[{"errorType":"MalformedHttpRequestException","message":"Unable to parse GraphQL query."}]}"#
            ),
            (
                "not json", 400,
                #"{"errors":[{"errorType":"MalformedHttpRequestException","message":"Unable to parse GraphQL query."}]}"#
            ),
        ]
    )
    func malformedBodies(body: String, status: Int, expected: String) async throws {
        try await Self.withEndpoint { url in
            let response = try await Self.send(url, body: body, headers: ["x-api-key": "da2-valid"])
            #expect(response.status == status)
            #expect(response.body == expected)
        }
    }

    @Test func missingAuthorization() async throws {
        try await Self.withEndpoint { url in
            let response = try await Self.send(url, body: #"{"query":"{ listPosts { items { id } } }"}"#)
            #expect(response.status == 401)
            #expect(
                response.body
                    == #"{"errors":[{"errorType":"UnauthorizedException","message":"Valid authorization header not provided."}]}"#
            )
        }
    }

    @Test(arguments: ["da2-wrong", "da2-expired"])
    func refusedAPIKeys(key: String) async throws {
        try await Self.withEndpoint { url in
            let response = try await Self.send(
                url,
                body: #"{"query":"{ listPosts { items { id } } }"}"#,
                headers: ["x-api-key": key]
            )
            #expect(response.status == 401)
            #expect(
                response.body
                    == #"{"errors":[{"errorType":"UnauthorizedException","message":"You are not authorized to make this call."}]}"#
            )
        }
    }

    @Test func unknownFieldIsA200ValidationError() async throws {
        try await Self.withEndpoint { url in
            let response = try await Self.send(url, body: #"{"query":"{ x }"}"#, headers: ["x-api-key": "da2-valid"])
            #expect(response.status == 200)
            #expect(
                response.body.contains(
                    #""message":"Validation error of type FieldUndefined: Field 'x' in type 'Query' is undefined @ 'x'""#
                )
            )
        }
    }

    @Test func apiKeyMutationAndGetQuery() async throws {
        try await Self.withEndpoint { url in
            let create = try await Self.send(
                url,
                body:
                    #"{"query":"mutation M($input: CreatePostInput!) { createPost(input: $input) { id title } }","variables":{"input":{"id":"p1","title":"Hello","rating":5,"status":"DRAFT"}}}"#,
                headers: ["x-api-key": "da2-valid", "content-type": "application/json"]
            )
            #expect(create.status == 200)
            #expect(create.body == #"{"data":{"createPost":{"id":"p1","title":"Hello"}}}"#)
            var components = URLComponents(url: url, resolvingAgainstBaseURL: false)!
            components.queryItems = [
                URLQueryItem(name: "query", value: "query G($id: ID!) { getPost(id: $id) { title } }"),
                URLQueryItem(name: "variables", value: #"{"id":"p1"}"#),
            ]
            let get = try await Self.send(
                components.url!,
                method: "GET",
                body: nil,
                headers: ["x-api-key": "da2-valid"]
            )
            #expect(get.status == 200)
            #expect(get.body == #"{"data":{"getPost":{"title":"Hello"}}}"#)
        }
    }

    @Test func sigV4SignedRequestsAreAcceptedAndTamperedOnesRefused() async throws {
        try await Self.withEndpoint { url in
            let body = #"{"query":"{ listPosts { items { id } } }"}"#
            let headers = SignedRequests.httpHeaders(body, to: url)
            let accepted = try await Self.send(url, body: body, headers: headers)
            #expect(accepted.status == 200)
            #expect(accepted.body == #"{"data":{"listPosts":{"items":[]}}}"#)

            let tampered = try await Self.send(
                url,
                body: body.replacingOccurrences(of: "id", with: "id __typename"),
                headers: headers
            )
            #expect(tampered.status == 403)
            #expect(
                tampered.body.contains("The request signature we calculated does not match the signature you provided.")
            )

            let otherHeaders = SignedRequests.httpHeaders(
                body,
                to: url,
                credentials: AWSCredentials(accessKeyId: "AKIDUNKNOWN", secretAccessKey: "x")
            )
            let unknown = try await Self.send(url, body: body, headers: otherHeaders)
            #expect(unknown.status == 403)
            #expect(unknown.body.contains("The security token included in the request is invalid."))
        }
    }

    /// A model without `@auth` rules or `@aws_*` directives admits the API's default mode alone,
    /// as AppSync does: a request signed in an additional mode (here IAM, beside API keys) is
    /// refused on its fields, and a directive naming the mode admits it.
    @Test func aModelWithoutRulesAdmitsOnlyTheDefaultMode() async throws {
        let body = #"{"query":"{ listPosts { items { id } } }"}"#
        try await Self.withEndpoint(schema: postSchema) { url in
            let refused = try await Self.send(url, body: body, headers: SignedRequests.httpHeaders(body, to: url))
            #expect(refused.status == 200)
            #expect(
                refused.body
                    == #"{"data":{"listPosts":null},"errors":[{"path":["listPosts"],"data":null,"#
                    + #""errorType":"Unauthorized","errorInfo":null,"locations":[{"line":1,"column":3,"sourceName":null}],"#
                    + #""message":"Not Authorized to access listPosts on type Query"}]}"#
            )
            let apiKey = try await Self.send(url, body: body, headers: ["x-api-key": "da2-valid"])
            #expect(apiKey.body == #"{"data":{"listPosts":{"items":[]}}}"#)
        }
        try await Self.withEndpoint(schema: postSchemaForEveryMode) { url in
            let admitted = try await Self.send(url, body: body, headers: SignedRequests.httpHeaders(body, to: url))
            #expect(admitted.body == #"{"data":{"listPosts":{"items":[]}}}"#)
        }
    }

    @Test func oversizedBodiesAreRefused() async throws {
        try await Self.withEndpoint(limits: ServerLimits(maxRequestBytes: 64)) { url in
            let body = #"{"query":"{ listPosts { items { id title rating status createdAt updatedAt } } }"}"#
            let response = try await Self.send(url, body: body, headers: ["x-api-key": "da2-valid"])
            #expect(response.status == 413)
            #expect(
                response.body
                    == #"{"errors":[{"errorType":"RequestEntityTooLargeException","message":"The request body is larger than 64 bytes. Send a smaller request."}]}"#
            )
        }
    }

    @Test func noneModeNeedsNoHeader() async throws {
        try await Self.withEndpoint(authorization: ServerAuthorization(defaultMode: .none)) { url in
            let response = try await Self.send(url, body: #"{"query":"{ listPosts { items { id } } }"}"#)
            #expect(response.status == 200)
        }
    }
}
