import Foundation

/// The options of `StratusBench chaos`.
struct ChaosOptions: Sendable {
    /// How conflicts are settled: by the server's strategy, and on devices by their handler.
    enum Conflicts: String, Sendable, CaseIterable {
        case automerge
        case optimistic
        /// A custom conflict handler, ``ChaosConflictRule``.
        case custom
    }

    /// What a device syncs with.
    enum Client: String, Sendable, CaseIterable {
        case datastore
        case appsync
    }

    /// Where the backend keeps its data.
    enum Store: String, Sendable, CaseIterable {
        /// One server in the harness's process on a SQLite data directory.
        case sqlite
        /// `stratus serve` processes sharing a database of a throwaway PostgreSQL cluster.
        case postgres
    }

    var devices = 3
    /// How many of the devices use `AWSAppSyncClient` rather than DataStore: the last ones. By
    /// default a third of them (one of three).
    var appSyncDevices: Int?
    /// Operations per device.
    var operations = 200
    var seed: UInt64 = 1
    /// The longest the operations and faults run, in minutes; the check follows.
    var minutes = 10.0
    /// With a value, the nemesis draws the kinds of fault evenly and goes on until each kind has
    /// had this many faults (or ``minutes`` passed), however soon the devices finish.
    var faultsPerKind: Int?
    var conflicts = Conflicts.automerge
    var store = Store.sqlite
    /// How many `stratus serve` instances share the PostgreSQL database (`--store postgres`).
    var instances = 2
    /// Whether devices reach the instances through nginx (`Examples/cluster/nginx.conf.template`)
    /// rather than each through its own instance (`--store postgres`).
    var nginx = false
    /// The `stratus` executable the instances run; by default the one beside this program.
    var stratus: URL?
    /// The shared records the devices edit: a quarter of them folders (at least one), the rest
    /// notes.
    var records = 16
    /// The longest the harness waits for quiescence once every fault healed, in seconds.
    var quiescenceTimeout = 120.0
    /// The mean pause between two operations of a device, in milliseconds.
    var pace = 20
    /// Where devices keep their databases and logs; a temporary directory by default, kept when
    /// a check fails.
    var directory: URL?

    static let usage = """
        usage: StratusBench chaos [--devices N] [--appsync-devices N] [--operations N (per device)] [--seed N]
                                  [--minutes M] [--faults-per-kind N]
                                  [--conflicts automerge|optimistic|custom] [--records N] [--pace MS]
                                  [--quiescence-timeout S] [--directory PATH]
                                  [--store sqlite|postgres] [--instances N (postgres)] [--nginx (postgres)]
                                  [--stratus PATH (postgres)]
        """

    /// Reads `arguments` (those after `chaos`).
    ///
    /// - Throws: ``ChaosError`` naming the option and the values it takes.
    init(_ arguments: [String]) throws {
        var rest = arguments[...]
        var instancesGiven = false
        func value(_ name: String) throws -> String {
            guard let value = rest.popFirst() else { throw ChaosError("\(name) needs a value.\n\(Self.usage)") }
            return value
        }
        func number<T: LosslessStringConvertible & Comparable>(_ name: String, atLeast minimum: T) throws -> T {
            let text = try value(name)
            guard let parsed = T(text), parsed >= minimum else {
                throw ChaosError("\(name) takes a number of at least \(minimum), not '\(text)'.")
            }
            return parsed
        }
        while let option = rest.popFirst() {
            switch option {
            case "--devices": devices = try number(option, atLeast: 1)
            case "--appsync-devices": appSyncDevices = try number(option, atLeast: 0)
            case "--operations": operations = try number(option, atLeast: 0)
            case "--seed": seed = try number(option, atLeast: 0)
            case "--minutes": minutes = try number(option, atLeast: 0.01)
            case "--faults-per-kind": faultsPerKind = try number(option, atLeast: 1)
            case "--pace": pace = try number(option, atLeast: 0)
            case "--quiescence-timeout": quiescenceTimeout = try number(option, atLeast: 1)
            case "--directory": directory = URL(fileURLWithPath: try value(option))
            case "--records": records = try number(option, atLeast: 2)
            case "--instances":
                instances = try number(option, atLeast: 1)
                instancesGiven = true
            case "--nginx": nginx = true
            case "--stratus": stratus = URL(fileURLWithPath: try value(option))
            case "--conflicts":
                let text = try value(option)
                guard let parsed = Conflicts(rawValue: text) else {
                    let names = Conflicts.allCases.map(\.rawValue)
                    throw ChaosError(
                        "--conflicts takes \(names.dropLast().joined(separator: ", ")) or \(names.last ?? ""), "
                            + "not '\(text)'."
                    )
                }
                conflicts = parsed
            case "--store":
                let text = try value(option)
                guard let parsed = Store(rawValue: text) else {
                    throw ChaosError(
                        "--store takes \(Store.allCases.map(\.rawValue).joined(separator: " or ")), not '\(text)'."
                    )
                }
                store = parsed
            default:
                throw ChaosError("Unknown option '\(option)'.\n\(Self.usage)")
            }
        }
        if let appSyncDevices, appSyncDevices > devices {
            throw ChaosError("--appsync-devices is at most --devices (\(devices)), not \(appSyncDevices).")
        }
        if store == .sqlite, instancesGiven {
            throw ChaosError("--instances needs --store postgres: on sqlite one server holds the data.")
        }
        if store == .sqlite, nginx {
            throw ChaosError(
                "--nginx needs --store postgres: on sqlite one server in this process serves every device."
            )
        }
    }

    /// How many devices use `AWSAppSyncClient`: ``appSyncDevices``, or a third of them.
    var appSyncDeviceCount: Int { appSyncDevices ?? devices / 3 }

    /// The client of device `device`: the last ``appSyncDeviceCount`` use `AWSAppSyncClient`.
    func client(of device: Int) -> Client {
        device >= devices - appSyncDeviceCount ? .appsync : .datastore
    }

    /// How many of ``records`` are folders and how many notes.
    var folders: Int { Self.folders(of: records) }
    var notes: Int { records - folders }

    /// The folders among `records` shared records: a quarter, at least one.
    static func folders(of records: Int) -> Int { max(1, records / 4) }
}
