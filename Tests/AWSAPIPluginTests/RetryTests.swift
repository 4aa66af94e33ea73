import AWSAPIPlugin
import Amplify
import Foundation
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Retries of 5xx and 429 with Retry-After and jittered backoff, on a clock that does not wait.
@Suite struct RetryTests {
    let request = RESTRequest(path: "/items")

    func plugin(_ transport: InMemoryTransport, clock: TestClock, policy: RetryPolicy) throws -> AWSAPIPlugin {
        try makePlugin([.rest(authorizationType: .none)], transport: transport, retryPolicy: policy, clock: clock)
    }

    @Test func retryAfterSecondsIsHonoured() async throws {
        let transport = InMemoryTransport([
            .json("busy", status: 503, headers: ["Retry-After": "7"]),
            .json("slow down", status: 429, headers: ["Retry-After": "2"]),
            .json("[1]"),
        ])
        let clock = TestClock()
        let data = try await plugin(transport, clock: clock, policy: RetryPolicy(maximumAttempts: 3)).get(
            request: request
        )
        #expect(String(decoding: data, as: UTF8.self) == "[1]")
        #expect(clock.recordedWaits == [.seconds(7), .seconds(2)])
        #expect(transport.requests.count == 3)
    }

    @Test func retryAfterHTTPDateIsMeasuredFromNow() async throws {
        // TestClock.date is Tue, 14 Nov 2023 22:13:20 GMT.
        let transport = InMemoryTransport([
            .json("", status: 503, headers: ["retry-after": "Tue, 14 Nov 2023 22:13:50 GMT"]),
            .json("", status: 503, headers: ["retry-after": "Tuesday, 14-Nov-23 22:13:25 GMT"]),
            .json("", status: 503, headers: ["retry-after": "Tue Nov 14 22:13:21 2023"]),
            .json("", status: 503, headers: ["retry-after": "Mon, 13 Nov 2023 00:00:00 GMT"]),
            .json("{}"),
        ])
        let clock = TestClock()
        _ = try await plugin(transport, clock: clock, policy: RetryPolicy(maximumAttempts: 5)).get(request: request)
        #expect(clock.recordedWaits == [.seconds(30), .seconds(5), .seconds(1), .zero])
    }

    @Test func backoffDoublesUpToTheMaximumWithoutJitter() async throws {
        let transport = InMemoryTransport([.json("", status: 500)])
        let clock = TestClock()
        let policy = RetryPolicy(
            maximumAttempts: 5,
            baseDelay: .milliseconds(100),
            maximumDelay: .milliseconds(300),
            jitter: 0
        )
        let plugin = try plugin(transport, clock: clock, policy: policy)
        await #expect(throws: APIError.self) { try await plugin.get(request: request) }
        #expect(
            clock.recordedWaits == [.milliseconds(100), .milliseconds(200), .milliseconds(300), .milliseconds(300)]
        )
        #expect(transport.requests.count == 5)
    }

    @Test func jitterTakesOffUpToItsFraction() async throws {
        let transport = InMemoryTransport([.json("", status: 502)])
        let clock = TestClock()
        let policy = RetryPolicy(maximumAttempts: 40, baseDelay: .seconds(1), maximumDelay: .seconds(1), jitter: 0.5)
        let plugin = try plugin(transport, clock: clock, policy: policy)
        await #expect(throws: APIError.self) { try await plugin.get(request: request) }
        let waits = clock.recordedWaits
        #expect(waits.count == 39)
        #expect(waits.allSatisfy { $0 > .milliseconds(500) && $0 <= .seconds(1) })
        #expect(Set(waits).count > 1, "the waits are randomized")
    }

    @Test func theLastFailureIsThrownWithItsStatusHeadersAndBody() async throws {
        let transport = InMemoryTransport([
            .json("first", status: 503),
            .json(#"{"message":"still down"}"#, status: 503, headers: ["x-amzn-requestid": "r2"]),
        ])
        let plugin = try plugin(transport, clock: TestClock(), policy: RetryPolicy(maximumAttempts: 2))
        do {
            _ = try await plugin.get(request: request)
            Issue.record("expected an error")
        } catch let error as APIError {
            guard case .httpStatusError(let status, let response) = error else {
                Issue.record("expected httpStatusError, got \(error)")
                return
            }
            #expect(status == 503)
            #expect(response.headers["x-amzn-requestid"] == "r2")
            #expect(String(decoding: response.body, as: UTF8.self) == #"{"message":"still down"}"#)
            #expect("\(error)" == #"The server answered HTTP 503: {"message":"still down"}"#)
        }
    }

    @Test(arguments: [400, 401, 403, 404, 409, 501, 505])
    func statusesThatARetryCannotChangeAreNotRetried(_ status: Int) async throws {
        let transport = InMemoryTransport([.json("", status: status)])
        let clock = TestClock()
        let plugin = try plugin(transport, clock: clock, policy: RetryPolicy(maximumAttempts: 3))
        await #expect(throws: APIError.self) { try await plugin.get(request: request) }
        #expect(transport.requests.count == 1)
        #expect(clock.recordedWaits.isEmpty)
    }

    @Test func aRetryAfterBeyondTheMaximumFailsAtOnce() async throws {
        let transport = InMemoryTransport([.json("", status: 429, headers: ["retry-after": "3600"])])
        let clock = TestClock()
        let plugin = try plugin(transport, clock: clock, policy: RetryPolicy(maximumAttempts: 3))
        await #expect(throws: APIError.self) { try await plugin.get(request: request) }
        #expect(transport.requests.count == 1)
        #expect(clock.recordedWaits.isEmpty)
    }

    @Test func anUnreadableRetryAfterFallsBackToBackoff() async throws {
        let transport = InMemoryTransport([.json("", status: 503, headers: ["retry-after": "soon"]), .json("{}")])
        let clock = TestClock()
        let policy = RetryPolicy(maximumAttempts: 2, baseDelay: .milliseconds(250), jitter: 0)
        _ = try await plugin(transport, clock: clock, policy: policy).get(request: request)
        #expect(clock.recordedWaits == [.milliseconds(250)])
    }

    @Test func theStandardPolicyRetriesThreeTimesWithoutRetryAfter() async throws {
        let transport = InMemoryTransport([.json("", status: 500)])
        let clock = TestClock()
        let plugin = try plugin(transport, clock: clock, policy: .standard)
        await #expect(throws: APIError.self) { try await plugin.get(request: request) }
        #expect(transport.requests.count == 3)
        let waits = clock.recordedWaits
        #expect(waits.count == 2)
        #expect(waits[0] > .milliseconds(100) && waits[0] <= .milliseconds(200))
        #expect(waits[1] > .milliseconds(200) && waits[1] <= .milliseconds(400))
    }

    @Test func graphQLRequestsAreRetriedAndSignedAgain() async throws {
        let transport = InMemoryTransport([
            .json("", status: 503, headers: ["retry-after": "1"]), .json(#"{"data":{"a":1}}"#),
        ])
        let plugin = try makePlugin(
            [.graphQL(authorizationType: .awsIAM)],
            transport: transport,
            retryPolicy: RetryPolicy(maximumAttempts: 2)
        )
        let response = try await plugin.query(request: GraphQLRequest(document: "{ a }", responseType: JSONValue.self))
        #expect(try response.get() == ["a": 1])
        #expect(transport.requests.count == 2)
        #expect(transport.requests.allSatisfy { $0.headers["authorization"]?.hasPrefix("AWS4-HMAC-SHA256") == true })
    }

    @Test func aConnectionFailureIsANetworkErrorAndIsNotRetried() async throws {
        let transport = InMemoryTransport { _, _ in throw URLError(.cannotConnectToHost) }
        let clock = TestClock()
        let plugin = try plugin(transport, clock: clock, policy: .standard)
        do {
            _ = try await plugin.get(request: request)
            Issue.record("expected an error")
        } catch let error as APIError {
            guard case .networkError(let message, let underlying) = error else {
                Issue.record("expected networkError, got \(error)")
                return
            }
            #expect(
                message
                    == "The request to https://xyz.execute-api.us-east-1.amazonaws.com/dev/items could not connect to the server; check that it is running."
            )
            #expect((underlying as? URLError)?.code == .cannotConnectToHost)
        }
        #expect(transport.requests.count == 1)
        #expect(clock.recordedWaits.isEmpty)
    }

    @Test func cancellingDuringAWaitEndsTheCall() async throws {
        let transport = InMemoryTransport([.json("", status: 503)])
        let clock = APIClock(now: { TestClock.date }, sleep: { _ in throw CancellationError() })
        let plugin = AWSAPIPlugin(transport: transport, retryPolicy: .standard, clock: clock)
        try plugin.configure(AWSAPIPluginConfiguration(endpoints: [.rest(authorizationType: .none)]))
        #expect(
            await thrownMessage { _ = try await plugin.get(request: request) }
                == "The request to https://xyz.execute-api.us-east-1.amazonaws.com/dev/items was cancelled. (CancellationError())"
        )
        #expect(transport.requests.count == 1)
    }
}

/// The parsing of Retry-After values.
@Suite struct RetryPolicyTests {
    func delay(_ header: String?, status: Int = 503, attempt: Int = 1) -> Duration? {
        let policy = RetryPolicy(maximumAttempts: 3, baseDelay: .seconds(1), jitter: 0)
        let response = APIResponse(statusCode: status, headers: header.map { ["Retry-After": $0] } ?? [:], body: Data())
        return policy.delay(afterAttempt: attempt, response: response, now: TestClock.date, random: 0.3)
    }

    @Test func values() {
        #expect(delay("0") == .zero)
        #expect(delay(" 12 ") == .seconds(12))
        #expect(delay("60") == .seconds(60))
        #expect(delay("61") == nil)
        #expect(delay("-1") == .seconds(1))
        #expect(delay("1.5") == .seconds(1))
        #expect(delay(nil, attempt: 2) == .seconds(2))
        #expect(delay(nil, attempt: 3) == nil)
        #expect(delay(nil, status: 200) == nil)
    }
}
