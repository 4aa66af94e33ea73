import AWSPluginsCore
import Amplify
import Foundation
import NIOPosix
import Testing

@testable import StratusBench

/// The fan-out benchmark's baseline server, heard through the project's own real-time client:
/// it must deliver what Stratus delivers, or its figures would not be a baseline.
@Suite(.timeLimit(.minutes(1))) struct BareFanoutServerTests {
    /// The bare server checks no authorization; the client still sends the host.
    struct HostOnly: AppSyncRealTimeAuthorizer {
        func connectionAuthorization(graphQLURL: URL) async throws -> [String: String] {
            ["host": "\(graphQLURL.host ?? ""):\(graphQLURL.port ?? 80)"]
        }

        func startAuthorization(graphQLURL: URL, data: String) async throws -> [String: String] {
            try await connectionAuthorization(graphQLURL: graphQLURL)
        }
    }

    typealias Events = AsyncThrowingStream<AppSyncRealTimeEvent, any Error>.AsyncIterator

    /// A client and its subscription's events; the client lives as long as this does.
    struct Subscriber {
        let client: AppSyncRealTimeClient
        var events: Events
    }

    /// Subscribes a client of its own to `bare`, returned once it is connected.
    private func subscribe(to bare: BareFanoutServer) async throws -> Subscriber {
        let client = AppSyncRealTimeClient(
            graphQLURL: try #require(URL(string: "http://127.0.0.1:\(bare.port)/graphql")),
            authorizer: HostOnly()
        )
        var events = await client.subscribe(data: #"{"query":"subscription { onUpdatePost { id } }"}"#)
            .makeAsyncIterator()
        while let event = try await events.next(), event != .connection(.connected) {}
        return Subscriber(client: client, events: events)
    }

    /// The mutation numbers of the next `count` data messages.
    private func mutations(_ count: Int, from events: inout Events) async throws -> [Int] {
        var heard: [Int] = []
        while heard.count < count, let event = try await events.next() {
            guard case .data(let payload) = event else { continue }
            let post = payload["data"]?["onUpdatePost"]
            heard.append(try #require(post?["title"]?.stringValue.flatMap { Int($0) }))
        }
        return heard
    }

    @Test func eachSubscriptionHearsTheEventsPostedAfterItsStartOnceAndInOrder() async throws {
        let bare = try await BareFanoutServer.start(group: MultiThreadedEventLoopGroup.singleton)
        // Heard by nobody: there is no subscription yet.
        bare.post(mutation: 0, record: 0, sequence: 1, sentAt: 1)
        var first = try await subscribe(to: bare)
        for mutation in 1...3 {
            bare.post(mutation: mutation, record: mutation % 2, sequence: mutation / 2 + 1, sentAt: 1)
        }
        #expect(try await mutations(3, from: &first.events) == [1, 2, 3])

        var second = try await subscribe(to: bare)
        for mutation in 4...200 {
            bare.post(mutation: mutation, record: mutation % 2, sequence: mutation / 2 + 1, sentAt: 1)
        }
        #expect(try await mutations(197, from: &first.events) == Array(4...200))
        #expect(try await mutations(197, from: &second.events) == Array(4...200))
        try await bare.close()
    }
}
