import AWSAPIPlugin
import Amplify
import Foundation
import Testing

/// REST calls: methods, URLs, bodies, and the status code and headers of `send`.
@Suite struct RESTTests {
    @Test(arguments: RESTMethod.allCases.filter { $0 != .any })
    func eachMethodSendsItsVerbAndReturnsTheBody(_ method: RESTMethod) async throws {
        let transport = InMemoryTransport(body: #"{"ok":true}"#)
        let plugin = try makePlugin([.rest(authorizationType: .none)], transport: transport)
        let request = RESTRequest(path: "/items/1", body: Data(#"{"name":"pen"}"#.utf8))
        let body: Data =
            switch method {
            case .get: try await plugin.get(request: request)
            case .put: try await plugin.put(request: request)
            case .post: try await plugin.post(request: request)
            case .delete: try await plugin.delete(request: request)
            case .head: try await plugin.head(request: request)
            case .patch: try await plugin.patch(request: request)
            case .options, .any: try await plugin.send(method, request: request).body
            }
        #expect(String(decoding: body, as: UTF8.self) == #"{"ok":true}"#)
        let sent = try #require(transport.requests.first)
        #expect(sent.method == method.rawValue)
        #expect(sent.url == "https://xyz.execute-api.us-east-1.amazonaws.com/dev/items/1")
        #expect(sent.bodyText == (method == .head ? "" : #"{"name":"pen"}"#))
    }

    @Test func sendReturnsStatusCodeAndHeaders() async throws {
        let transport = InMemoryTransport([
            APIResponse(
                statusCode: 201,
                headers: ["Location": "/items/9", "X-Amzn-RequestId": "r1"],
                body: Data("{}".utf8)
            )
        ])
        let plugin = try makePlugin([.rest(authorizationType: .none)], transport: transport)
        let response = try await plugin.send(.post, request: RESTRequest(path: "/items", body: Data("{}".utf8)))
        #expect(response.statusCode == 201)
        #expect(response.headers == ["location": "/items/9", "x-amzn-requestid": "r1"])
        #expect(response.body == Data("{}".utf8))
    }

    @Test func headReportsTheHeaders() async throws {
        let transport = InMemoryTransport([
            APIResponse(statusCode: 200, headers: ["Content-Length": "42"], body: Data())
        ])
        let plugin = try makePlugin([.rest(authorizationType: .none)], transport: transport)
        let response = try await plugin.send(.head, request: RESTRequest(path: "/items"))
        #expect(response.headers["content-length"] == "42")
        #expect(response.body.isEmpty)
    }

    /// `ANY` is the method of an API Gateway route, which the methods share with the local
    /// backend's routes: a request sent with it is refused before anything is sent.
    @Test func anyIsRefusedAsTheMethodOfARequest() async throws {
        let transport = InMemoryTransport(body: "{}")
        let plugin = try makePlugin([.rest(authorizationType: .none)], transport: transport)
        let error = await #expect(throws: APIError.self) {
            try await plugin.send(.any, request: RESTRequest(path: "/items"))
        }
        #expect(
            error?.description
                == "ANY is the method of a route that serves every method; a request has one. "
                + "Send it with GET, POST, PUT, DELETE, PATCH, HEAD or OPTIONS."
        )
        #expect(transport.requests.isEmpty)
    }

    @Test func aStatusOtherThan2xxIsThrownWithTheResponse() async throws {
        let transport = InMemoryTransport([
            APIResponse(
                statusCode: 404,
                headers: ["x-amzn-errortype": "NotFoundException"],
                body: Data(#"{"message":"Not Found"}"#.utf8)
            )
        ])
        let plugin = try makePlugin([.rest(authorizationType: .none)], transport: transport)
        do {
            _ = try await plugin.get(request: RESTRequest(path: "/missing"))
            Issue.record("expected an error")
        } catch APIError.httpStatusError(let status, let response) {
            #expect(status == 404)
            #expect(response.headers["x-amzn-errortype"] == "NotFoundException")
            #expect(String(decoding: response.body, as: UTF8.self) == #"{"message":"Not Found"}"#)
        }
    }

    @Test(
        arguments: [
            (nil, nil, "https://xyz.execute-api.us-east-1.amazonaws.com/dev"),
            ("items", nil, "https://xyz.execute-api.us-east-1.amazonaws.com/dev/items"),
            ("/a b/ü;x=1?#", nil, "https://xyz.execute-api.us-east-1.amazonaws.com/dev/a%20b/%C3%BC%3Bx%3D1%3F%23"),
            (
                "/items", ["b": "2", "a": "1 & 2/3", "é": "="],
                "https://xyz.execute-api.us-east-1.amazonaws.com/dev/items?a=1%20%26%202%2F3&b=2&%C3%A9=%3D"
            ),
        ] as [(String?, [String: String]?, String)]
    )
    func urls(_ path: String?, _ query: [String: String]?, _ expected: String) async throws {
        let transport = InMemoryTransport(body: "")
        let plugin = try makePlugin([.rest(authorizationType: .none)], transport: transport)
        _ = try await plugin.get(request: RESTRequest(path: path, queryParameters: query))
        #expect(transport.requests.first?.url == expected)
    }

    @Test func aTrailingSlashOnTheEndpointIsNotDoubled() async throws {
        let transport = InMemoryTransport(body: "")
        let url = URL(string: "http://127.0.0.1:20002/rest/")!
        let plugin = try makePlugin([.rest(url: url, authorizationType: .none)], transport: transport)
        _ = try await plugin.get(request: RESTRequest(path: "/items"))
        #expect(transport.requests.first?.url == "http://127.0.0.1:20002/rest/items")
    }

    @Test func severalRESTAPIsAreChosenByName() async throws {
        let transport = InMemoryTransport(body: "")
        let other = URL(string: "https://other.execute-api.us-east-1.amazonaws.com/prod")!
        let plugin = try makePlugin(
            [.rest(authorizationType: .none), .rest(name: "other", url: other, authorizationType: .none)],
            transport: transport
        )
        _ = try await plugin.get(request: RESTRequest(apiName: "other", path: "/x"))
        #expect(transport.requests.first?.url == "https://other.execute-api.us-east-1.amazonaws.com/prod/x")
        #expect(
            await thrownMessage { _ = try await plugin.get(request: RESTRequest(path: "/x")) }
                == "There are several REST APIs (items, other) and the request names none. Set apiName to one of them."
        )
    }

    @Test func restWithAnAPIKey() async throws {
        let transport = InMemoryTransport(body: "")
        let plugin = try makePlugin([.rest(authorizationType: .apiKey, apiKey: "rest-key")], transport: transport)
        _ = try await plugin.get(request: RESTRequest(path: "/x", headers: ["accept": "*/*"]))
        #expect(transport.requests.first?.headers == ["accept": "*/*", "x-api-key": "rest-key"])
    }

    @Test func restWithAUserPoolsToken() async throws {
        let transport = InMemoryTransport(body: "")
        let plugin = try makePlugin([.rest(authorizationType: .amazonCognitoUserPools)], transport: transport)
        _ = try await plugin.delete(request: RESTRequest(path: "/x"))
        #expect(transport.requests.first?.headers == ["authorization": "user-pools-token"])
    }
}
