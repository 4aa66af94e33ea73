import Foundation

/// Requests per second of one kind of request, measured and printed alike by the benchmarks that
/// set a client beside a bare request: an untimed warm-up, then `requests` timed requests.
struct RequestRate {
    /// How many requests are timed.
    var requests: Int
    /// How many requests go first, untimed, to open connections and fill caches.
    var warmUp: Int
    /// The width the printed name is padded to, so that the figures of a benchmark line up.
    var nameWidth: Int

    /// Sends the requests with `body` one after another, prints the rate and returns it.
    func measure(_ name: String, _ body: () async throws -> Void) async throws -> Double {
        for _ in 0..<warmUp { try await body() }
        let elapsed = try await ContinuousClock().measure {
            for _ in 0..<requests { try await body() }
        }
        return report(name, elapsed)
    }

    /// Sends the requests with `body`, `width` at a time, prints the rate and returns it.
    func measure(
        _ name: String,
        width: Int,
        _ body: @escaping @Sendable () async throws -> Void
    ) async throws -> Double {
        for _ in 0..<warmUp { try await body() }
        let requests = requests
        let elapsed = try await ContinuousClock().measure {
            try await withThrowingTaskGroup(of: Void.self) { group in
                for lane in 0..<width {
                    let share = requests / width + (lane < requests % width ? 1 : 0)
                    group.addTask {
                        for _ in 0..<share { try await body() }
                    }
                }
                try await group.waitForAll()
            }
        }
        return report(name, elapsed)
    }

    private func report(_ name: String, _ elapsed: Duration) -> Double {
        let rate = Double(requests) / elapsed.inSeconds
        let figure = String(format: rate >= 100 ? "%.0f" : "%.2f", rate)
        print("    \(name.padding(toLength: nameWidth, withPad: " ", startingAt: 0)) \(figure) requests/s")
        return rate
    }
}

extension Duration {
    /// The duration in seconds, as a `Double`.
    var inSeconds: Double {
        let (seconds, attoseconds) = components
        return Double(seconds) + Double(attoseconds) / 1e18
    }
}
