import Foundation
import StratusServer
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// What browsers and command-line tools send: form-encoded query strings, links that must not
/// write, and CORS preflights.
@Suite struct BrowserClientTests {
    /// `text` as an HTML form (and `curl -G --data-urlencode`) encodes a query parameter: `+`
    /// for a space, `%XX` for every other byte but letters, digits and `-._~`.
    static func formEncoded(_ text: String) -> String {
        var result = ""
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: " "): result += "+"
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"),
                UInt8(ascii: "~"):
                result.append(Character(Unicode.Scalar(byte)))
            default: result += String(format: "%%%02X", byte)
            }
        }
        return result
    }

    /// `url` with a form-encoded query string of `parameters`, in order.
    static func url(_ url: URL, _ parameters: [(String, String)]) -> URL {
        let query = parameters.map { formEncoded($0.0) + "=" + formEncoded($0.1) }.joined(separator: "&")
        return URL(string: url.absoluteString + "?" + query)!
    }

    static let key = ["x-api-key": "da2-valid"]

    @Test func aFormEncodedGetQueryIsDecoded() async throws {
        try await HTTPEndpointTests.withEndpoint { url in
            let create = try await HTTPEndpointTests.send(
                url,
                body:
                    #"{"query":"mutation { createPost(input: {id: \"p+1\", title: \"C++ & more\", rating: 1, status: DRAFT}) { id } }"}"#,
                headers: Self.key
            )
            #expect(create.body == #"{"data":{"createPost":{"id":"p+1"}}}"#)
            let get = try await HTTPEndpointTests.send(
                Self.url(
                    url,
                    [
                        ("query", "query G($id: ID!) { getPost(id: $id) { id title } }"),
                        ("variables", #"{"id": "p+1"}"#),
                        ("operationName", "G"),
                    ]
                ),
                method: "GET",
                body: nil,
                headers: Self.key
            )
            #expect(get.status == 200)
            #expect(get.body == #"{"data":{"getPost":{"id":"p+1","title":"C++ & more"}}}"#)
        }
    }

    @Test func aGetQueryThatIsNotUTF8IsUnparsable() async throws {
        try await HTTPEndpointTests.withEndpoint { url in
            let response = try await HTTPEndpointTests.send(
                URL(string: url.absoluteString + "?query=%7B+listPosts+%7B+items+%7B+id+%7D+%7D+%7D%FF")!,
                method: "GET",
                body: nil,
                headers: Self.key
            )
            #expect(response.status == 400)
            #expect(
                response.body
                    == #"{"errors":[{"errorType":"MalformedHttpRequestException","message":"Unable to parse GraphQL query."}]}"#
            )
        }
    }

    @Test func aGetCarryingAMutationIsRefusedAndWritesNothing() async throws {
        let create = #"mutation M { createPost(input: {id: "p1", title: "T", rating: 1, status: DRAFT}) { id } }"#
        let list = "query L { listPosts { items { id } } }"
        let refused =
            #"{"errors":[{"errorType":"MalformedHttpRequestException","message":"Mutations cannot be sent with GET, "#
            + #"which must not change data. Send the mutation with POST."}]}"#
        try await HTTPEndpointTests.withEndpoint { url in
            for parameters in [[("query", create)], [("query", list + "\n" + create), ("operationName", "M")]] {
                let response = try await HTTPEndpointTests.exchange(
                    Self.url(url, parameters),
                    method: "GET",
                    body: nil,
                    headers: Self.key
                )
                #expect(response.status == 405)
                #expect(response.headers["allow"] == "POST")
                #expect(response.body == refused)
            }
            // The query of the same document still runs over GET.
            let query = try await HTTPEndpointTests.send(
                Self.url(url, [("query", list + "\n" + create), ("operationName", "L")]),
                method: "GET",
                body: nil,
                headers: Self.key
            )
            #expect(query.status == 200)
            #expect(query.body == #"{"data":{"listPosts":{"items":[]}}}"#)
        }
    }

    @Test func aPreflightIsAnsweredAsAppSyncAnswersIt() async throws {
        try await HTTPEndpointTests.withEndpoint { url in
            let response = try await HTTPEndpointTests.exchange(
                url,
                method: "OPTIONS",
                body: nil,
                headers: [
                    "origin": "http://localhost:3000",
                    "access-control-request-method": "POST",
                    "access-control-request-headers": "content-type,x-api-key,x-amz-user-agent",
                ]
            )
            #expect(response.status == 200)
            #expect(response.body == "")
            #expect(response.headers["access-control-allow-origin"] == "*")
            #expect(response.headers["access-control-allow-methods"] == "GET,POST,OPTIONS")
            #expect(
                response.headers["access-control-allow-headers"]
                    == "Content-Type,X-Amz-Date,Authorization,X-Api-Key,X-Amz-Security-Token,X-Amz-Content-Sha256,"
                    + "X-Amz-User-Agent"
            )
            #expect(
                response.headers["access-control-expose-headers"]
                    == "x-amzn-RequestId,x-amzn-ErrorType,x-amz-user-agent,x-amzn-ErrorMessage,Date,x-amz-schema-version"
            )
            #expect(response.headers["access-control-max-age"] == "172800")
        }
    }

    @Test func answersAndRefusalsCarryCORSHeaders() async throws {
        try await HTTPEndpointTests.withEndpoint { url in
            let body = #"{"query":"{ listPosts { items { id } } }"}"#
            let answered = try await HTTPEndpointTests.exchange(
                url,
                body: body,
                headers: ["x-api-key": "da2-valid", "origin": "http://localhost:3000"]
            )
            let refused = try await HTTPEndpointTests.exchange(
                url,
                body: body,
                headers: ["origin": "http://localhost:3000"]
            )
            #expect(answered.status == 200)
            #expect(refused.status == 401)
            for response in [answered, refused] {
                #expect(response.headers["access-control-allow-origin"] == "*")
                #expect(
                    response.headers["access-control-expose-headers"]
                        == "x-amzn-RequestId,x-amzn-ErrorType,x-amz-user-agent,x-amzn-ErrorMessage,Date,"
                        + "x-amz-schema-version"
                )
            }
        }
    }
}
