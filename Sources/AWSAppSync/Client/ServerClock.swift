import AWSWire
import Amplify
import Foundation
import Synchronization

/// The server's time, as the `Date` headers of its answers tell it, against the device's clock.
///
/// A delta sync asks for the changes since its last sync. That time must be the server's: a
/// device whose clock runs ahead would otherwise ask for the changes since a time the server
/// has not reached, and miss every change made while it was away.
final class ServerClock: Sendable {
    /// The device's clock: ``AWSAppSyncClientConfiguration/clock``.
    private let clock: @Sendable () -> Date
    /// The last `Date` header heard, with the device's time when its answer arrived.
    private let lastHeard = Mutex<(header: String, arrived: Date)?>(nil)

    init(clock: @escaping @Sendable () -> Date) {
        self.clock = clock
    }

    /// The device's time now.
    func deviceNow() -> Date { clock() }

    /// Notes the `Date` header of an answer that just arrived.
    func heard(_ response: APIResponse) {
        guard let header = response.headers["date"] else { return }
        let arrived = clock()
        lastHeard.withLock { $0 = (header, arrived) }
    }

    /// How far the server's clock is ahead of the device's (negative when behind); `nil` until
    /// an answer with a readable `Date` header arrived. Never more than the true difference: the
    /// header is whole seconds, rounded down, and was written before its answer arrived.
    var offset: TimeInterval? {
        guard let (header, arrived) = lastHeard.withLock({ $0 }), let date = Date(httpDate: header) else { return nil }
        return date.timeIntervalSince(arrived)
    }

    /// The server's time at the device's time `date`, or `date` itself while no answer has
    /// told the difference.
    func serverTime(at date: Date) -> Date {
        date.addingTimeInterval(offset ?? 0)
    }
}
