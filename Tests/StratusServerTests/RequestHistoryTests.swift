import Foundation
import Testing

@testable import StratusServer

/// The requests a server keeps for the console: HTTP requests and subscription starts, with
/// who made them and what authorization decided, the oldest dropped first.
@Suite struct RequestHistoryTests {
    static func record(_ name: String) -> RequestRecord {
        RequestRecord(
            requestID: name,
            time: Date(timeIntervalSince1970: 0),
            transport: .http,
            method: "POST",
            path: "/graphql",
            decision: .allowed,
            status: 200,
            durationMilliseconds: 1,
            errors: []
        )
    }

    @Test func aHistoryKeepsItsCapacityNewestFirst() {
        let history = RequestHistory(capacity: 3)
        #expect(history.records.isEmpty)
        for name in ["a", "b"] { history.add(Self.record(name)) }
        #expect(history.records.map(\.requestID) == ["b", "a"])
        for name in ["c", "d", "e"] { history.add(Self.record(name)) }
        #expect(history.records.map(\.requestID) == ["e", "d", "c"])
        #expect(history.records.map(\.sequence) == [5, 4, 3])
    }

    @Test func eachHTTPRequestIsKeptWithItsIdentityDecisionAndErrors() async throws {
        let history = RequestHistory()
        try await RealtimeTests.withEndpoint(requestHistory: history) { endpoint in
            let allowed = try await HTTPEndpointTests.exchange(
                endpoint.graphQLURL,
                body: #"{"query":"query Posts($limit: Int) { listPosts(limit: $limit) { items { id } } }","#
                    + #""variables":{"limit":2}}"#,
                headers: ["x-api-key": "da2-valid"]
            )
            #expect(allowed.status == 200)
            let refused = try await HTTPEndpointTests.exchange(
                endpoint.graphQLURL,
                body: #"{"query":"{ listPosts { items { id } } }"}"#,
                headers: ["x-api-key": "da2-wrong"]
            )
            #expect(refused.status == 401)
            let unreadable = try await HTTPEndpointTests.exchange(
                endpoint.graphQLURL,
                body: "not json",
                headers: ["x-api-key": "da2-valid"]
            )
            #expect(unreadable.status == 400)
            // Two root fields: the executor runs them, one resolver each.
            let twice = try await HTTPEndpointTests.exchange(
                endpoint.graphQLURL,
                body: #"{"query":"{ a: listPosts { items { id } } b: listPosts { items { id } } }"}"#,
                headers: ["x-api-key": "da2-valid"]
            )
            #expect(twice.status == 200)
            let health = try await HTTPEndpointTests.exchange(
                URL(string: "http://127.0.0.1:\(endpoint.port)/health")!,
                method: "GET",
                body: nil
            )
            #expect(health.status == 200)
        }
        let records = history.records
        try #require(records.count == 4, "\(records)")
        let (twice, unreadable, refused, allowed) = (records[0], records[1], records[2], records[3])
        #expect(twice.resolverCount == 2)
        #expect(allowed.resolverCount == 1)
        #expect(refused.resolverCount == nil)
        #expect(allowed.operationType == "query")
        #expect(allowed.operationName == "Posts")
        #expect(allowed.authorizationMode == "API_KEY")
        #expect(allowed.identity == "API key da2-vali…")
        #expect(allowed.decision == .allowed)
        #expect(allowed.query == "query Posts($limit: Int) { listPosts(limit: $limit) { items { id } } }")
        #expect(allowed.variables == ["limit": 2])
        #expect(allowed.errors.isEmpty)
        #expect(refused.status == 401)
        #expect(refused.authorizationMode == nil)
        #expect(refused.decision == .refused(["You are not authorized to make this call."]))
        #expect(
            refused.errors == [
                ["errorType": "UnauthorizedException", "message": "You are not authorized to make this call."]
            ]
        )
        #expect(unreadable.decision == .undecided)
        #expect(unreadable.errors.map { $0["message"] } == ["Unable to parse GraphQL query."])
    }

    @Test func eachSubscriptionStartIsKeptAllowedOrRefused() async throws {
        let history = RequestHistory()
        try await RealtimeTests.withEndpoint(requestHistory: history) { endpoint in
            let socket = try await endpoint.connect()
            socket.send(RealtimeTests.start("1", "subscription OnPost { onCreatePost { id title } }").text)
            #expect(try await socket.next() == #"{"id":"1","type":"start_ack"}"#)
            let data: JSON = ["query": "subscription { onCreatePost { id } }", "variables": [:]]
            let denied: JSON = [
                "id": "2", "type": "start",
                "payload": [
                    "data": .string(data.text),
                    "extensions": ["authorization": ["host": .string(endpoint.host), "authorization": "deny"]],
                ],
            ]
            socket.send(denied.text)
            #expect(try await socket.next()?.contains(#""id":"2","type":"error""#) == true)
            await socket.close()
        }
        let records = history.records
        try #require(records.count == 2, "\(records)")
        let (refused, started) = (records[0], records[1])
        #expect(started.transport == .realtime)
        #expect(started.method == "start")
        #expect(started.requestID == "1")
        #expect(started.operationType == "subscription")
        #expect(started.operationName == "OnPost")
        #expect(started.authorizationMode == "API_KEY")
        #expect(started.decision == .allowed)
        #expect(started.status == 200)
        #expect(started.query == "subscription OnPost { onCreatePost { id title } }")
        #expect(refused.requestID == "2")
        #expect(refused.status == 401)
        #expect(refused.decision == .refused(["You are not authorized to make this call."]))
    }

    @Test func restRequestsAreKeptWithTheirRouteModeAndRefusal() async throws {
        let history = RequestHistory()
        let api = RESTAPI(
            name: "items",
            routes: [RESTRoute(path: "/keyed", methods: [.get], authorization: .apiKey, handler: .echo)]
        )
        try await HTTPEndpointTests.withEndpoint(restAPIs: [api], requestHistory: history) { graphQL in
            let keyed = graphQL.deletingLastPathComponent().appending(path: "rest/items/keyed")
            let allowed = try await HTTPEndpointTests.exchange(
                keyed,
                method: "GET",
                body: nil,
                headers: ["x-api-key": "da2-valid"]
            )
            #expect(allowed.status == 200)
            let refused = try await HTTPEndpointTests.exchange(keyed, method: "GET", body: nil)
            #expect(refused.status == 403)
        }
        let records = history.records
        try #require(records.count == 2, "\(records)")
        let (refused, allowed) = (records[0], records[1])
        #expect(allowed.path == "/rest/items/keyed")
        #expect(allowed.method == "GET")
        #expect(allowed.authorizationMode == "API_KEY")
        #expect(allowed.identity == "API key da2-vali…")
        #expect(allowed.decision == .allowed)
        #expect(refused.authorizationMode == nil)
        #expect(refused.decision == .refused(["Forbidden"]))
        #expect(refused.errors == [["message": "Forbidden"]])
    }

    /// A model whose rules admit no API key caller: the reason names the model, mode and field.
    @Test func aFieldNoRuleAdmitsIsRefusedWithTheModelsRules() async throws {
        let history = RequestHistory()
        let schema = "type Secret @model @auth(rules: [{ allow: private, provider: iam }]) { id: ID! }"
        try await HTTPEndpointTests.withEndpoint(schema: schema, requestHistory: history) { graphQL in
            let answer = try await HTTPEndpointTests.exchange(
                graphQL,
                body: #"{"query":"{ listSecrets { items { id } } }"}"#,
                headers: ["x-api-key": "da2-valid"]
            )
            #expect(answer.body.contains("Not Authorized to access listSecrets on type Query"))
        }
        let record = try #require(history.records.first)
        #expect(
            record.decision
                == .refused([
                    "Not Authorized to access listSecrets on type Query (at listSecrets)",
                    "No @auth rule of Secret admits API_KEY callers to listSecrets.",
                ])
        )
    }
}
