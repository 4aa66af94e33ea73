import Synchronization

/// The bytes waiting to be written to the real-time connections of a server, added up: what a
/// client that stops reading makes the server hold, which ``RealtimeLimits/maxQueuedBytes``
/// bounds per connection.
///
/// Connections report changes once per pass of the fan-out or per protocol message, not per
/// event, so it costs the fan-out next to nothing.
///
/// Connections also report here the changes of their running subscriptions and the `data`
/// messages they queued, which go on to ``metrics``.
final class RealtimeQueueGauge: Sendable {
    private let total = Atomic<Int>(0)
    private let peak = Atomic<Int>(0)
    /// Where subscriptions and deliveries are counted, if anywhere.
    let metrics: ServerMetrics?
    /// Where deliveries are counted for the console, if anywhere.
    let monitor: LiveMonitor?

    init(metrics: ServerMetrics? = nil, monitor: LiveMonitor? = nil) {
        self.metrics = metrics
        self.monitor = monitor
    }

    /// The bytes waiting in all connections now.
    var queuedBytes: Int { total.load(ordering: .relaxed) }

    /// The most bytes one connection has had waiting.
    var peakConnectionBytes: Int { peak.load(ordering: .relaxed) }

    /// Adds `change` to the total; `connectionQueue` is what the connection that changed holds
    /// now, for the peak.
    func add(_ change: Int, connectionQueue: Int) {
        total.add(change, ordering: .relaxed)
        var known = peak.load(ordering: .relaxed)
        while connectionQueue > known {
            let (exchanged, original) = peak.compareExchange(
                expected: known,
                desired: connectionQueue,
                ordering: .relaxed
            )
            if exchanged { break }
            known = original
        }
    }
}
