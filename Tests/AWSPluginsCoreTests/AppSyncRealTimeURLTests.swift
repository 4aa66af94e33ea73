import AWSPluginsCore
import Foundation
import Testing

/// The real-time endpoint of a GraphQL URL, and the reconnection backoff.
@Suite struct AppSyncRealTimeURLTests {
    @Test(
        arguments: [
            (
                "https://abc123.appsync-api.us-east-1.amazonaws.com/graphql",
                "wss://abc123.appsync-realtime-api.us-east-1.amazonaws.com/graphql"
            ),
            ("http://127.0.0.1:20002/graphql", "ws://127.0.0.1:20002/graphql/realtime"),
            ("https://api.example.com/graphql/", "wss://api.example.com/graphql/realtime"),
        ]
    )
    func realTimeURL(_ graphQL: String, _ expected: String) {
        #expect(URL(string: graphQL)!.appSyncRealTimeURL.absoluteString == expected)
    }

    @Test func backoffDoublesUpToTheMaximumWithJitterOverTheUpperHalf() {
        let configuration = AppSyncRealTimeConfiguration(initialDelay: .milliseconds(100), maximumDelay: .seconds(2))
        #expect(configuration.delay(beforeAttempt: 1, random: 1) == .milliseconds(100))
        #expect(configuration.delay(beforeAttempt: 1, random: 0) == .milliseconds(50))
        #expect(configuration.delay(beforeAttempt: 2, random: 1) == .milliseconds(200))
        #expect(configuration.delay(beforeAttempt: 4, random: 1) == .milliseconds(800))
        #expect(configuration.delay(beforeAttempt: 6, random: 1) == .seconds(2), "capped")
        #expect(configuration.delay(beforeAttempt: 60, random: 0.5) == .milliseconds(1500), "no overflow")
    }
}
