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

    /// A hand-written subscription over generated mutations, beside the models' own.
    static let todoSchema = """
        type Todo @model { id: ID! name: String! done: Boolean }
        type Message { channel: String! text: String! }
        type Query { hello: String }
        type Mutation { publish(channel: String!, text: String!): Message }
        type Subscription {
          onAnyTodo(name: String): Todo @aws_subscribe(mutations: ["createTodo", "updateTodo"])
          onPublish(channel: String): Message @aws_subscribe(mutations: ["publish"])
          onTodoMessage: Message @aws_subscribe(mutations: ["createTodo"])
        }
        """

    /// The generated mutations `@aws_subscribe` lists reach the subscription with their result's
    /// fields (those the mutation did not select are `null`), when the arguments given equal
    /// the result's fields of their names; a mutation it does not list does not.
    @Test func generatedMutationsReachTheSubscriptionsThatListThem() async throws {
        try await RealtimeTests.withEndpoint(schema: Self.todoSchema, configuration: Self.configuration) { endpoint in
            let socket = try await endpoint.connect()
            socket.send(
                RealtimeTests.start("1", #"subscription { onAnyTodo(name: "milk") { id name done __typename } }"#)
                    .text
            )
            #expect(try await socket.next() == #"{"id":"1","type":"start_ack"}"#)
            socket.send(RealtimeTests.start("2", "subscription { all: onAnyTodo { name } }").text)
            #expect(try await socket.next() == #"{"id":"2","type":"start_ack"}"#)
            let mutations = [
                #"mutation { createTodo(input: {id: "t1", name: "bread", done: true}) { id name } }"#,
                #"mutation { createTodo(input: {id: "t2", name: "milk"}) { id name } }"#,
                #"mutation { updateTodo(input: {id: "t2", done: true}) { id name done } }"#,
                #"mutation { deleteTodo(input: {id: "t2"}) { id name done } }"#,
            ]
            for mutation in mutations {
                _ = await endpoint.server.execute(query: mutation, identity: .apiKey)
            }
            for expected in [
                #"{"id":"2","type":"data","payload":{"data":{"all":{"name":"bread"}}}}"#,
                #"{"id":"1","type":"data","payload":{"data":{"onAnyTodo":{"id":"t2","name":"milk","done":null,"#
                    + #""__typename":"Todo"}}}}"#,
                #"{"id":"2","type":"data","payload":{"data":{"all":{"name":"milk"}}}}"#,
                #"{"id":"1","type":"data","payload":{"data":{"onAnyTodo":{"id":"t2","name":"milk","done":true,"#
                    + #""__typename":"Todo"}}}}"#,
                #"{"id":"2","type":"data","payload":{"data":{"all":{"name":"milk"}}}}"#,
            ] {
                #expect(try await socket.next() == expected)
            }
            // The delete is not listed: the next message is the stop's.
            socket.send(#"{"id":"1","type":"stop"}"#)
            #expect(try await socket.next() == #"{"id":"1","type":"complete"}"#)
            _ = await endpoint.server.execute(
                query: #"mutation { createTodo(input: {id: "t3", name: "milk"}) { id name } }"#,
                identity: .apiKey
            )
            #expect(try await socket.next() == #"{"id":"2","type":"data","payload":{"data":{"all":{"name":"milk"}}}}"#)
            socket.send(#"{"id":"2","type":"stop"}"#)
            #expect(try await socket.next() == #"{"id":"2","type":"complete"}"#)
        }
    }

    /// A subscription that lists a generated mutation returns that mutation's model, as AppSync
    /// requires; one that does not is refused at `start` with what to change.
    @Test func aSubscriptionOfAnotherTypeThanTheMutationsIsRefused() async throws {
        try await RealtimeTests.withEndpoint(schema: Self.todoSchema, configuration: Self.configuration) { endpoint in
            let socket = try await endpoint.connect()
            socket.send(RealtimeTests.start("1", "subscription { onTodoMessage { text } }").text)
            #expect(
                try await socket.next()
                    == #"{"id":"1","type":"error","payload":{"errors":[{"errorType":"ValidationError","#
                    + #""message":"onTodoMessage returns Message, but @aws_subscribe(mutations:) lists createTodo, "#
                    + #"which returns Todo. Make onTodoMessage return Todo, or list mutations that return its type."}]}}"#
            )
        }
    }

    /// Hand-written subscriptions count toward the connection's 100 with the model ones, and
    /// share their ids.
    @Test func handWrittenSubscriptionsCountTowardTheConnectionsLimit() async throws {
        try await RealtimeTests.withEndpoint(schema: Self.todoSchema, configuration: Self.configuration) { endpoint in
            let socket = try await endpoint.connect()
            for index in 1...50 {
                socket.send(RealtimeTests.start("m\(index)", "subscription { onCreateTodo { id } }").text)
                socket.send(RealtimeTests.start("h\(index)", "subscription { onPublish { text } }").text)
            }
            socket.send(RealtimeTests.start("h51", "subscription { onPublish { text } }").text)
            socket.send(RealtimeTests.start("m51", "subscription { onCreateTodo { id } }").text)
            for index in 1...50 {
                #expect(try await socket.next() == #"{"id":"m\#(index)","type":"start_ack"}"#)
                #expect(try await socket.next() == #"{"id":"h\#(index)","type":"start_ack"}"#)
            }
            let refusal =
                #""type":"error","payload":{"errors":[{"errorType":"MaxSubscriptionsReachedError","#
                + #""message":"Max number of 100 subscriptions reached. Stop a subscription before starting another."}]}}"#
            #expect(try await socket.next() == #"{"id":"h51","# + refusal)
            #expect(try await socket.next() == #"{"id":"m51","# + refusal)
            socket.send(#"{"id":"h1","type":"stop"}"#)
            #expect(try await socket.next() == #"{"id":"h1","type":"complete"}"#)
            socket.send(RealtimeTests.start("h2", "subscription { onCreateTodo { id } }").text)
            #expect(
                try await socket.next()
                    == #"{"id":"h2","type":"error","payload":{"errors":[{"errorType":"DuplicatedOperationError","#
                    + #""message":"A subscription with the id 'h2' is already running on this connection."}]}}"#
            )
            socket.send(RealtimeTests.start("m51", "subscription { onCreateTodo { id } }").text)
            #expect(try await socket.next() == #"{"id":"m51","type":"start_ack"}"#)
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
