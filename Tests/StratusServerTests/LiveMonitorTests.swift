import Foundation
import Testing

@testable import StratusServer

/// What the console's Live page reads: the open connections with their subscriptions, and each
/// committed write.
@Suite struct LiveMonitorTests {
    /// Waits until `condition` holds, up to two seconds: a connection's end is told after its
    /// socket closes, on the server's side.
    static func eventually(_ condition: () -> Bool) async -> Bool {
        for _ in 0..<200 {
            if condition() { return true }
            try? await Task.sleep(for: .milliseconds(10))
        }
        return condition()
    }

    @Test func connectionsSubscriptionsAndWritesAreTold() async throws {
        let monitor = LiveMonitor(capacity: 2)
        try await RealtimeTests.withEndpoint(liveMonitor: monitor) { endpoint in
            let socket = try await endpoint.connect()
            socket.send(
                RealtimeTests.start("s1", #"subscription { onCreatePost(filter: {rating: {gt: 2}}) { id } }"#).text
            )
            #expect(try await socket.next() == #"{"id":"s1","type":"start_ack"}"#)
            let connections = monitor.connections
            try #require(connections.count == 1)
            #expect(connections[0].authorizationMode == "API_KEY")
            #expect(connections[0].identity == "API key da2-vali…")
            let subscription = try #require(connections[0].subscriptions.first)
            #expect(subscription.id == "s1")
            #expect(subscription.field == "onCreatePost")
            #expect(subscription.model == "Post")
            #expect(subscription.filter?.text == #"{"rating":{"gt":2}}"#)
            #expect(subscription.identity == "API key")
            for (id, rating) in [("p1", 1), ("p2", 3), ("p3", 5)] {
                await endpoint.create(id: id, rating: rating)
            }
            // The subscription hears the two above its filter's rating; the monitor keeps the last two.
            for id in ["p2", "p3"] {
                #expect(
                    try await socket.next()
                        == #"{"id":"s1","type":"data","payload":{"data":{"onCreatePost":{"id":"\#(id)"}}}}"#
                )
            }
            #expect(monitor.deliveries == 2)
            let events = monitor.events()
            #expect(events.map(\.sequence) == [3, 2])
            #expect(events.map(\.mutation) == ["createPost", "createPost"])
            #expect(events[0].kind == "create")
            #expect(events[0].item["id"] == "p3")
            #expect(events[0].item["rating"] == 5)
            #expect(monitor.events(after: 2).map(\.sequence) == [3])
            socket.send(#"{"id":"s1","type":"stop"}"#)
            #expect(try await socket.next() == #"{"id":"s1","type":"complete"}"#)
            #expect(monitor.connections.first?.subscriptions.isEmpty == true)
            await socket.close()
            #expect(await Self.eventually { monitor.connections.isEmpty })
        }
    }
}
