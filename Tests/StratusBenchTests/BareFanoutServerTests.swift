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

    /// Subscribes a client of its own to `bare` and returns its events once it is connected.
    private func subscribe(to bare: BareFanoutServer) async throws -> (AppSyncRealTimeClient, Events) {
        let client = AppSyncRealTimeClient(
            graphQLURL: try #require(URL(string: "http://127.0.0.1:\(bare.port)/graphql")),
            authorizer: HostOnly()
        )
        var events = await client.subscribe(data: #"{"query":"subscription { onUpdatePost { id } }"}"#)
            .makeAsyncIterator()
        while let event = try await events.next(), event != .connection(.connected) {}
        return (client, events)
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
        let (first, firstBefore) = try await subscribe(to: bare)
        var firstEvents = firstBefore
        for mutation in 1...3 {
            bare.post(mutation: mutation, record: mutation % 2, sequence: mutation / 2 + 1, sentAt: 1)
        }
        #expect(try await mutations(3, from: &firstEvents) == [1, 2, 3])

        let (second, secondBefore) = try await subscribe(to: bare)
        var secondEvents = secondBefore
        for mutation in 4...200 {
            bare.post(mutation: mutation, record: mutation % 2, sequence: mutation / 2 + 1, sentAt: 1)
        }
        #expect(try await mutations(197, from: &firstEvents) == Array(4...200))
        #expect(try await mutations(197, from: &secondEvents) == Array(4...200))
        _ = (first, second)
        try await bare.close()
    }
}
