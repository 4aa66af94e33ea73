import Synchronization

/// The order check of a chaos run: every subscriber heard each record's versions in increasing
/// order.
///
/// A listener (a device's DataStore, or on PostgreSQL the harness's own subscriber on each
/// instance) writes a `heard` line for each record a subscription delivered: the record, its
/// `_version`, the subscription (its name and the number of its `subscribe` call in the
/// process) and the subscription's connection. Within one connection of one subscription of one
/// process, a record's versions must rise: a delivery whose `_version` is lower than or equal to
/// one that connection already delivered for that record is out of order (an older change after
/// a newer one, or one change twice).
///
/// What does not count: deliveries of different subscriptions (a record's `onCreate` and its
/// `onUpdate` are separate subscriptions), of different processes (a restarted device
/// subscribes anew) and of different connections of one subscription. A subscription that lost
/// its connection subscribes again on a new one and hears only what is committed from then on,
/// but the harness cannot tell a change delivered late on the old connection from one delivered
/// again on the new, so each connection is checked on its own. Different records are not
/// compared either: writes of different records in concurrent transactions have no commit order
/// a subscriber could be held to (on PostgreSQL they are delivered by transaction id).
enum ChaosOrder {
    /// One connection of one subscription, for one record.
    private struct Stream: Hashable {
        var incarnation: Int
        var subscription: String
        var connection: Int
        var key: ChaosKey
    }

    /// The deliveries of `heard` (one listener's lines, in the order heard) that came out of
    /// order, each described; a delivery without a record or `_version` is described too.
    static func violations(_ heard: [OperationLogEntry], listener: String) -> [String] {
        var highest: [Stream: Int] = [:]
        var found: [String] = []
        for entry in heard where entry.entry == .heard {
            let connection = entry.connection ?? 0
            let place =
                "\(entry.subscription ?? "a subscription") (process \(entry.incarnation), connection \(connection))"
            guard let model = entry.model, let id = entry.id, let version = entry.version else {
                found.append(
                    "\(listener) heard \(entry.model ?? "a record") \(entry.id ?? "without an id") without a _version on "
                        + place
                )
                continue
            }
            let stream = Stream(
                incarnation: entry.incarnation,
                subscription: entry.subscription ?? "",
                connection: connection,
                key: ChaosKey(model: model, id: id)
            )
            if let previous = highest[stream], version <= previous {
                found.append(
                    "\(listener) heard \(stream.key) _version \(version) after _version \(previous) on \(place)"
                )
                continue
            }
            highest[stream] = version
        }
        return found
    }
}

/// One subscription of a listener, writing a `heard` line for each record it delivers.
final class HeardSubscription: Sendable {
    /// The subscription's field (`onUpdateNote`) and the number of its `subscribe` call.
    let name: String
    let model: String
    private let device: Int
    private let incarnation: Int
    private let connections = Mutex(-1)
    private let write: @Sendable (OperationLogEntry) -> Void

    /// A subscription to `field` (`onUpdateNote`), the `number`th of process `incarnation` of
    /// listener `device`, whose lines go to `write`.
    init(
        field: String,
        number: Int,
        device: Int,
        incarnation: Int,
        write: @escaping @Sendable (OperationLogEntry) -> Void
    ) {
        name = "\(field)#\(number)"
        model =
            ["onCreate", "onUpdate", "onDelete"].first { field.hasPrefix($0) }.map { String(field.dropFirst($0.count)) }
            ?? field
        self.device = device
        self.incarnation = incarnation
        self.write = write
    }

    /// The server acknowledged the subscription: a new connection begins.
    func connected() {
        connections.withLock { $0 += 1 }
    }

    /// The subscription delivered the record `id` at `version`.
    func heard(id: String?, version: Int?) {
        write(
            OperationLogEntry(
                entry: .heard,
                device: device,
                incarnation: incarnation,
                model: model,
                id: id,
                version: version,
                subscription: name,
                connection: max(0, connections.withLock { $0 })
            )
        )
    }
}
