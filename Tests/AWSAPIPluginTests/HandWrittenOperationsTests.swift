import AWSAPIPlugin
import AWSPluginsCore
import Amplify
import Foundation
import StratusServer
import StratusTesting
import Testing

/// A plain AppSync schema, hand-written operations only, served by the local backend and used
/// through the API plugin as an app uses it: a query answered by a function (a command written
/// in Python), and a mutation answered by a NONE data source whose result reaches a
/// subscription that lists it in `@aws_subscribe`.
@Suite struct HandWrittenOperationsTests {
    static let schema = """
        type Message { channel: String! text: String! }
        type Query { greet(name: String!): String @function(name: "greet-${env}") }
        type Mutation { publish(channel: String!, text: String!): Message }
        type Subscription {
          onPublish(channel: String): Message @aws_subscribe(mutations: ["publish"])
        }
        """

    static let greet = """
        import json, sys
        event = json.load(sys.stdin)
        print(json.dumps("Hello, " + event["arguments"]["name"] + " from " + event["fieldName"]))
        """

    @Test func aFunctionQueryAndAPublishedMutationReachTheAPIPlugin() async throws {
        let directory = FileManager.default.temporaryDirectory.appending(path: "handwritten-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        try Data(Self.greet.utf8).write(to: directory.appending(path: "greet.py"))
        var configuration = ServerConfiguration(environmentName: "dev")
        configuration.functions["greet-dev"] = LocalFunction(
            handler: .command(["python3", "greet.py"]),
            workingDirectory: directory,
            timeout: .seconds(20)
        )
        configuration.resolvers["Mutation.publish"] = ConfiguredResolver.none
        let backend = try await LocalBackend.start(schema: Self.schema, configuration: configuration)
        do {
            let api = try backend.makeAPIPlugin(authorizationType: .apiKey)
            let greeting = try await api.query(
                request: GraphQLRequest<JSONValue>(
                    document: "query Greet($name: String!) { greet(name: $name) }",
                    variables: ["name": "Ada"],
                    responseType: JSONValue.self
                )
            ).get()
            #expect(greeting == ["greet": "Hello, Ada from greet"])

            let subscription = api.subscribe(
                request: GraphQLRequest<JSONValue>(
                    document: #"subscription { onPublish(channel: "news") { channel text } }"#,
                    responseType: JSONValue.self
                )
            )
            var events = subscription.makeAsyncIterator()
            // Subscribed before publishing: the connection's states come first.
            while let event = try await events.next() {
                if case .connection(.connected) = event { break }
            }
            for (channel, text) in [("sport", "not for this subscriber"), ("news", "Hello")] {
                let published = try await api.mutate(
                    request: GraphQLRequest<JSONValue>(
                        document:
                            "mutation P($c: String!, $t: String!) { publish(channel: $c, text: $t) { channel text } }",
                        variables: ["c": .string(channel), "t": .string(text)],
                        responseType: JSONValue.self
                    )
                ).get()
                #expect(published == ["publish": ["channel": .string(channel), "text": .string(text)]])
            }
            var received: [JSONValue] = []
            while let event = try await events.next() {
                if case .data(let result) = event {
                    received.append(try result.get())
                    break
                }
            }
            #expect(received == [["onPublish": ["channel": "news", "text": "Hello"]]])
            subscription.cancel()
        } catch {
            await backend.stop()
            throw error
        }
        await backend.stop()
    }
}
