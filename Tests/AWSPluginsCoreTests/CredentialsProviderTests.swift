import AWSPluginsCore
import AWSWire
import Foundation
import Synchronization
import Testing

private let keys = AWSCredentials(
    accessKeyId: "AKIDEXAMPLE",
    secretAccessKey: "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY",
    sessionToken: "token-1"
)

@Test func staticProvidersReturnTheirCredentials() async throws {
    #expect(try await StaticCredentialsProvider(keys).fetchCredentials() == keys)
    let provider = StaticCredentialsProvider(accessKeyId: "AKID", secretAccessKey: "secret")
    #expect(
        try await provider.fetchCredentials()
            == AWSCredentials(accessKeyId: "AKID", secretAccessKey: "secret", sessionToken: nil, expiration: nil)
    )
}

@Test func descriptionsRedactSecretsAndTokens() {
    let credentials = AWSCredentials(
        accessKeyId: "AKIDEXAMPLE",
        secretAccessKey: "very-secret",
        sessionToken: "very-token",
        expiration: Date(timeIntervalSince1970: 1_704_164_645)
    )
    #expect(
        credentials.description
            == "AWSCredentials(accessKeyId: AKIDEXAMPLE, secretAccessKey: <redacted>, sessionToken: <redacted>, "
            + "expiration: 2024-01-02T03:04:05Z)"
    )
    #expect(
        AWSCredentials(accessKeyId: "AKID", secretAccessKey: "s").description
            == "AWSCredentials(accessKeyId: AKID, secretAccessKey: <redacted>)"
    )
}

// MARK: - Environment

@Test func environmentProvidersReadTheStandardVariables() async throws {
    let provider = EnvironmentCredentialsProvider(environment: [
        "AWS_ACCESS_KEY_ID": "ASIAEXAMPLE",
        "AWS_SECRET_ACCESS_KEY": "secret",
        "AWS_SESSION_TOKEN": "token",
        "AWS_REGION": "us-east-1",
    ])
    #expect(
        try await provider.fetchCredentials()
            == AWSCredentials(accessKeyId: "ASIAEXAMPLE", secretAccessKey: "secret", sessionToken: "token")
    )
}

@Test func environmentProvidersLeaveTheTokenOutWhenItIsUnsetOrEmpty() async throws {
    for token in [nil, ""] as [String?] {
        var environment = ["AWS_ACCESS_KEY_ID": "AKID", "AWS_SECRET_ACCESS_KEY": "secret"]
        environment["AWS_SESSION_TOKEN"] = token
        let credentials = try await EnvironmentCredentialsProvider(environment: environment).fetchCredentials()
        #expect(credentials.sessionToken == nil)
        #expect(credentials.accessKeyId == "AKID")
    }
}

@Test(
    arguments: [
        ([:], "AWS_ACCESS_KEY_ID"),
        (["AWS_SECRET_ACCESS_KEY": "secret"], "AWS_ACCESS_KEY_ID"),
        (["AWS_ACCESS_KEY_ID": "", "AWS_SECRET_ACCESS_KEY": "secret"], "AWS_ACCESS_KEY_ID"),
        (["AWS_ACCESS_KEY_ID": "AKID"], "AWS_SECRET_ACCESS_KEY"),
        (
            ["AWS_ACCESS_KEY_ID": "AKID", "AWS_SECRET_ACCESS_KEY": "", "AWS_SESSION_TOKEN": "t"],
            "AWS_SECRET_ACCESS_KEY"
        ),
    ] as [([String: String], String)]
)
func environmentProvidersNameTheMissingVariable(environment: [String: String], missing: String) async throws {
    let error = await #expect(throws: AWSCredentialsError.self) {
        try await EnvironmentCredentialsProvider(environment: environment).fetchCredentials()
    }
    #expect(error?.missingVariable == missing)
    #expect(
        error?.description
            == "The environment variable \(missing) is not set. Export AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY "
            + "(and AWS_SESSION_TOKEN for temporary credentials), or use another credentials provider."
    )
}

// MARK: - Refreshing

/// A clock the test moves by hand.
private final class TestClock: Sendable {
    private let current = Mutex(Date(timeIntervalSince1970: 1_704_164_645))

    var now: Date { current.withLock { $0 } }

    func advance(by seconds: TimeInterval) {
        current.withLock { $0.addTimeInterval(seconds) }
    }
}

/// A credentials source that counts its calls and issues numbered keys.
private final class CountingSource: Sendable {
    private let calls = Counter()
    let lifetime: TimeInterval?
    let clock: TestClock

    init(clock: TestClock, lifetime: TimeInterval?) {
        self.clock = clock
        self.lifetime = lifetime
    }

    var count: Int { calls.value }

    func next() -> AWSCredentials {
        let number = calls.increment()
        return AWSCredentials(
            accessKeyId: "ASIA\(number)",
            secretAccessKey: "secret-\(number)",
            sessionToken: "token-\(number)",
            expiration: lifetime.map { clock.now.addingTimeInterval($0) }
        )
    }
}

@Test func refreshingProvidersKeepCredentialsUntilTheMarginBeforeExpiry() async throws {
    let clock = TestClock()
    let source = CountingSource(clock: clock, lifetime: 60 * 60)
    let provider = RefreshingCredentialsProvider(now: { clock.now }) { source.next() }
    #expect(await provider.refreshMargin == 300)

    #expect(try await provider.fetchCredentials().accessKeyId == "ASIA1")
    clock.advance(by: 55 * 60 - 1)
    #expect(try await provider.fetchCredentials().accessKeyId == "ASIA1")
    #expect(source.count == 1)

    // Five minutes before expiry the credentials are replaced.
    clock.advance(by: 1)
    #expect(try await provider.fetchCredentials().accessKeyId == "ASIA2")
    #expect(try await provider.fetchCredentials().accessKeyId == "ASIA2")
    #expect(source.count == 2)
}

@Test func refreshingProvidersHonourACustomMargin() async throws {
    let clock = TestClock()
    let source = CountingSource(clock: clock, lifetime: 60)
    let provider = RefreshingCredentialsProvider(refreshMargin: 10, now: { clock.now }) { source.next() }
    #expect(try await provider.fetchCredentials().accessKeyId == "ASIA1")
    clock.advance(by: 49)
    #expect(try await provider.fetchCredentials().accessKeyId == "ASIA1")
    clock.advance(by: 1)
    #expect(try await provider.fetchCredentials().accessKeyId == "ASIA2")
}

@Test func refreshingProvidersKeepCredentialsWithoutExpirationForGood() async throws {
    let clock = TestClock()
    let source = CountingSource(clock: clock, lifetime: nil)
    let provider = RefreshingCredentialsProvider(now: { clock.now }) { source.next() }
    _ = try await provider.fetchCredentials()
    clock.advance(by: 365 * 24 * 60 * 60)
    #expect(try await provider.fetchCredentials().accessKeyId == "ASIA1")
    #expect(source.count == 1)
}

/// A thread-safe counter.
private final class Counter: Sendable {
    private let count = Mutex(0)

    var value: Int { count.withLock { $0 } }

    /// Adds one and returns the new value.
    @discardableResult
    func increment() -> Int {
        count.withLock { count in
            count += 1
            return count
        }
    }
}

/// A gate that holds callers until it is opened.
private actor Gate {
    private var isOpen = false
    private var waiters: [CheckedContinuation<Void, Never>] = []

    func wait() async {
        if isOpen { return }
        await withCheckedContinuation { waiters.append($0) }
    }

    func open() {
        isOpen = true
        for waiter in waiters {
            waiter.resume()
        }
        waiters = []
    }
}

@Test func concurrentCallersShareOneRefresh() async throws {
    let clock = TestClock()
    let source = CountingSource(clock: clock, lifetime: 60 * 60)
    let gate = Gate()
    let started = Counter()
    let provider = RefreshingCredentialsProvider(now: { clock.now }) {
        await gate.wait()
        return source.next()
    }
    let callers = 20
    try await withThrowingTaskGroup(of: AWSCredentials.self) { group in
        for _ in 0..<callers {
            group.addTask {
                started.increment()
                return try await provider.fetchCredentials()
            }
        }
        // Hold the refresh until every caller has asked for credentials.
        while started.value < callers {
            await Task.yield()
        }
        try await Task.sleep(for: .milliseconds(50))
        await gate.open()
        var keys: Set<String> = []
        for try await credentials in group {
            keys.insert(credentials.accessKeyId)
        }
        #expect(keys == ["ASIA1"])
    }
    #expect(source.count == 1)

    // After expiry, concurrent callers again share one refresh.
    clock.advance(by: 60 * 60)
    async let first = provider.fetchCredentials()
    async let second = provider.fetchCredentials()
    let (a, b) = try await (first, second)
    #expect(a.accessKeyId == "ASIA2")
    #expect(b.accessKeyId == "ASIA2")
    #expect(source.count == 2)
}

private struct SourceDown: Error, Equatable {}

@Test func failedRefreshesReachTheCallerAndAreRetried() async throws {
    let attempts = Counter()
    let provider = RefreshingCredentialsProvider {
        if attempts.increment() == 1 {
            throw SourceDown()
        }
        return keys
    }
    await #expect(throws: SourceDown()) {
        try await provider.fetchCredentials()
    }
    #expect(try await provider.fetchCredentials() == keys)
    #expect(attempts.value == 2)
}
