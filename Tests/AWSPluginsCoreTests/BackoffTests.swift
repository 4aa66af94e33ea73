import AWSPluginsCore
import Testing

/// The exponential wait every client's retries share.
@Suite struct BackoffTests {
    @Test func itDoublesFromTheBaseUpToTheCapWithoutOverflow() {
        let wait = { (attempt: Int) in Backoff.exponential(attempt: attempt, base: .milliseconds(100), cap: .seconds(5))
        }
        #expect(wait(0) == .milliseconds(100), "less than one failure counts as one")
        #expect(wait(1) == .milliseconds(100))
        #expect(wait(2) == .milliseconds(200))
        #expect(wait(4) == .milliseconds(800))
        #expect(wait(6) == .milliseconds(3200))
        #expect(wait(7) == .seconds(5), "capped")
        #expect(wait(Int.max) == .seconds(5), "no overflow")
    }
}
