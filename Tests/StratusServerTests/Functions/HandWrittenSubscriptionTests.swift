import Foundation
import StratusServer
import Testing

/// Hand-written subscriptions with `@aws_subscribe(mutations:)`, fired by hand-written
/// mutations: the local-resolver pub/sub pattern over the real-time endpoint.
@Suite struct HandWrittenSubscriptionTests {
    static let configuration = ServerConfiguration(resolvers: ["Mutation.publish": .none])

    @Test func aNoneMutationReachesTheSubscriptionsWhoseArgumentsItMatches() async throws {
        try await RealtimeTests.withEndpoint(schema: CustomResolverTests.schema, configuration: Self.configuration) {
            endpoint in
            let socket = try await endpoint.connect()
            socket.send(
                RealtimeTests.start("1", #"subscription { onPublish(channel: "news") { channel text __typename } }"#)
                    .text
            )
            #expect(try await socket.next() == #"{"id":"1","type":"start_ack"}"#)
            for (channel, text) in [("sports", "no"), ("news", "hi")] {
                _ = await endpoint.server.execute(
                    query: #"mutation { publish(channel: "\#(channel)", text: "\#(text)") { channel } }"#,
                    identity: .apiKey
                )
            }
            // The mutation selected only `channel`: the subscriber gets `text` as null, as in AppSync.
            #expect(
                try await socket.next()
                    == #"{"id":"1","type":"data","payload":{"data":{"onPublish":{"channel":"news","text":null,"#
                    + #""__typename":"Message"}}}}"#
            )
            socket.send(#"{"id":"1","type":"stop"}"#)
            #expect(try await socket.next() == #"{"id":"1","type":"complete"}"#)
            _ = await endpoint.server.execute(
                query: #"mutation { publish(channel: "news", text: "after") { channel text } }"#,
                identity: .apiKey
            )
            socket.send(RealtimeTests.start("2", "subscription { onPublish { text } }").text)
            #expect(try await socket.next() == #"{"id":"2","type":"start_ack"}"#)
        }
    }

    @Test func aModeTheFieldDoesNotAdmitIsRefused() async throws {
        let schema = """
            type Note @model { id: ID! }
            type Message { channel: String! text: String! }
            type Query { hello: String }
            type Mutation { publish(channel: String!, text: String!): Message }
            type Subscription {
              onPublish(channel: String): Message @aws_subscribe(mutations: ["publish"]) @aws_cognito_user_pools
            }
            """
        try await RealtimeTests.withEndpoint(schema: schema, configuration: Self.configuration) { endpoint in
            let socket = try await endpoint.connect()
            socket.send(RealtimeTests.start("1", "subscription { onPublish { text } }").text)
            #expect(
                try await socket.next()
                    == #"{"id":"1","type":"error","payload":{"errors":[{"errorType":"Unauthorized","#
                    + #""message":"Not Authorized to access onPublish on type Subscription"}]}}"#
            )
        }
    }

    @Test func gqlHearsAHandWrittenMutationOnItsChannel() async throws {
        let script = URL(filePath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appending(path: "Interop/gql_pubsub.py")
        try await RealtimeTests.withEndpoint(schema: CustomResolverTests.schema, configuration: Self.configuration) {
            endpoint in
            let result = try await GQLInteropTests.run(
                [
                    "python3", script.path, endpoint.graphQLURL.absoluteString, endpoint.realtimeURL, endpoint.host,
                    "da2-valid",
                ]
            )
            try #require(result.status == 0, "\(result.output)")
            let json = try JSON(parsing: String(result.output.split(separator: "\n").last ?? ""))
            #expect(json["error"] == nil, "\(json)")
            let events = json["events"]?.arrayValue ?? []
            #expect(events.count >= 2)
            #expect(events.allSatisfy { $0["channel"] == "news" })
            #expect(events.last == ["channel": "news", "text": "last"])
        }
    }
}
