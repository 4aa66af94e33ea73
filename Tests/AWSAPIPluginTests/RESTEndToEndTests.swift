import AWSAPIPlugin
import Amplify
import Foundation
import StratusServer
import StratusTesting
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// REST through the plugin against the local backend's REST APIs, one per auth mode: the
/// server sees the key, the signature (`execute-api`), the token and the interceptors' headers.
@Suite struct RESTEndToEndTests {
    /// Answers with the headers and the caller's claims the proxy event carried.
    static let inspect = RESTHandler.function { event in
        var seen = JSONObject()
        seen["method"] = event.objectValue?["httpMethod"] ?? .null
        seen["path"] = event.objectValue?["path"] ?? .null
        seen["query"] = event.objectValue?["queryStringParameters"] ?? .null
        seen["headers"] = event.objectValue?["headers"] ?? .null
        seen["username"] =
            event.objectValue?["requestContext"]?.objectValue?["authorizer"]?.objectValue?["claims"]?.objectValue?[
                "cognito:username"
            ] ?? .null
        seen["body"] = event.objectValue?["body"] ?? .null
        return [
            "statusCode": 202,
            "headers": ["content-type": "application/json", "x-request-seen": "yes"],
            "body": .string(JSON.object(seen).text),
        ]
    }

    static func apis() -> [RESTAPI] {
        [
            ("open", Identity.AuthorizationMode.none), ("keyed", .apiKey), ("signed", .awsIAM),
            ("pool", .amazonCognitoUserPools),
        ].map { name, mode in
            RESTAPI(
                name: name,
                routes: [
                    RESTRoute(path: "/items", authorization: mode, handler: .echo),
                    RESTRoute(path: "/inspect/{proxy+}", authorization: mode, handler: inspect),
                ]
            )
        }
    }

    struct Header: URLRequestInterceptor {
        let name: String
        let value: String
        func intercept(_ request: URLRequest) async throws -> URLRequest {
            var request = request
            request.setValue(value, forHTTPHeaderField: name)
            return request
        }
    }

    final class PoolFactory: APIAuthProviderFactory, @unchecked Sendable {
        struct Token: AmplifyUserPoolsAuthProvider {
            let token: String
            func getLatestAuthToken() async throws -> String { token }
        }
        let token: String
        init(token: String) { self.token = token }
        override func userPoolsAuthProvider() -> AmplifyUserPoolsAuthProvider? { Token(token: token) }
    }

    static func json(_ data: Data) throws -> JSONValue {
        try JSONDecoder().decode(JSONValue.self, from: data)
    }

    @Test func everyModeReachesItsRoutes() async throws {
        let pool = try await MotoUserPool.shared()
        let backend = try await LocalBackend.start(
            schema: "type Note @model { id: ID! }",
            userPool: pool.authorization(),
            restAPIs: Self.apis()
        )
        do {
            let api = try backend.makeAPIPlugin(apiAuthProviderFactory: PoolFactory(token: pool.aliceId))
            try api.add(interceptor: Header(name: "x-first", value: "1"), for: "keyed")
            try api.add(interceptor: Header(name: "x-second", value: "2"), for: "keyed")

            let open = try await api.send(
                .get,
                request: RESTRequest(apiName: "open", path: "/items", queryParameters: ["page": "2"])
            )
            #expect(open.statusCode == 200)
            #expect(try Self.json(open.body) == ["success": "get call succeed!", "url": "/items?page=2"])
            #expect(open.headers["access-control-allow-origin"] == "*")

            let keyed = try await api.send(
                .post,
                request: RESTRequest(
                    apiName: "keyed",
                    path: "/inspect/a/b",
                    headers: ["x-request": "r"],
                    body: Data(#"{"n":1}"#.utf8)
                )
            )
            #expect(keyed.statusCode == 202)
            #expect(keyed.headers["x-request-seen"] == "yes")
            let seen = try Self.json(keyed.body)
            #expect(seen.value(at: "path") == "/inspect/a/b")
            #expect(seen.value(at: "body") == #"{"n":1}"#)
            #expect(seen.value(at: "headers.x-api-key")?.stringValue == backend.apiKey)
            #expect(seen.value(at: "headers.x-request") == "r")
            #expect(seen.value(at: "headers.x-first") == "1", "interceptors' headers reach the server")
            #expect(seen.value(at: "headers.x-second") == "2")

            let signed = try await api.send(
                .put,
                request: RESTRequest(apiName: "signed", path: "/items", body: Data(#"{"k":"v"}"#.utf8))
            )
            #expect(
                try Self.json(signed.body) == ["success": "put call succeed!", "url": "/items", "body": ["k": "v"]]
            )
            let signedGet = try await api.send(
                .get,
                request: RESTRequest(apiName: "signed", path: "/inspect/x y", queryParameters: ["q": "a&b", "r": "é"])
            )
            #expect(try Self.json(signedGet.body).value(at: "query") == ["q": "a&b", "r": "é"])
            #expect(
                try Self.json(signedGet.body).value(at: "headers.authorization")?.stringValue?.hasPrefix(
                    "AWS4-HMAC-SHA256 Credential=AKIDSTRATUSTEST/"
                ) == true
            )

            let pooled = try await api.send(.get, request: RESTRequest(apiName: "pool", path: "/inspect/me"))
            #expect(try Self.json(pooled.body).value(at: "username") == "alice")

            let data = try await api.get(request: RESTRequest(apiName: "open", path: "/items"))
            #expect(try Self.json(data) == ["success": "get call succeed!", "url": "/items"])
        } catch {
            await backend.stop()
            throw error
        }
        await backend.stop()
    }

    @Test func refusalsKeepStatusAndBody() async throws {
        let backend = try await LocalBackend.start(
            schema: "type Note @model { id: ID! }",
            restAPIs: Self.apis().filter { $0.name != "pool" }
        )
        do {
            let wrongKey = AWSAPIPlugin()
            try wrongKey.configure(
                AWSAPIPluginConfiguration(endpoints: [
                    .init(
                        name: "keyed",
                        endpointType: .rest,
                        endpoint: backend.restEndpoint(of: "keyed"),
                        region: "us-east-1",
                        authorizationType: .apiKey,
                        apiKey: "da2-wrong"
                    )
                ])
            )
            do {
                _ = try await wrongKey.get(request: RESTRequest(apiName: "keyed", path: "/items"))
                Issue.record("a wrong key was accepted")
            } catch APIError.httpStatusError(let status, let response) {
                #expect(status == 403)
                #expect(String(decoding: response.body, as: UTF8.self) == #"{"message":"Forbidden"}"#)
            }
            let api = try backend.makeAPIPlugin()
            do {
                _ = try await api.send(.patch, request: RESTRequest(apiName: "open", path: "/items"))
                Issue.record("PATCH is not served by the echo handler")
            } catch APIError.httpStatusError(let status, let response) {
                #expect(status == 404)
                #expect(String(decoding: response.body, as: UTF8.self).contains("Cannot PATCH /items"))
            }
        } catch {
            await backend.stop()
            throw error
        }
        await backend.stop()
    }
}
