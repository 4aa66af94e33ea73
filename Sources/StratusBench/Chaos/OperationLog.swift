import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// One line of a chaos device's operation log: a write the device's DataStore acknowledged, a
/// conflict or refusal the device was told of, or a mark of its progress.
struct OperationLogEntry: Codable, Sendable, Hashable {
    /// What the line records.
    enum Entry: String, Codable, Sendable {
        /// A device process started (`incarnation` counts the starts of this device).
        case started
        /// A save or delete returned without error: DataStore acknowledged it locally.
        case write
        /// The backend answered a conflict and the device's conflict handler settled it.
        case conflict
        /// The backend refused an outbox change for good (a failed condition or an error).
        case rejected
        /// The device made all its operations.
        case finished
        /// A subscription delivered a record (in a device's or an observer's side file, not in
        /// the operation log): its `_version`, the subscription and its connection.
        case heard
    }

    /// The kind of a write.
    enum Kind: String, Codable, Sendable {
        case create, update, delete
    }

    var entry: Entry
    var device: Int
    var incarnation: Int
    /// The position of the write among the device's operations, from 0.
    var sequence: Int?
    var kind: Kind?
    var model: String?
    var id: String?
    /// The write's operation id (`d<device>.<incarnation>.<sequence>`), the value it put in
    /// `ops`; for a conflict or refusal, the last id in the local record's `ops`.
    var op: String?
    /// The write's values besides `id` and `ops`.
    var values: [String: String]?
    /// How a conflict was settled.
    var resolution: String?
    /// For a write of an `AWSAppSyncClient` device: the queue id of the mutation that carries
    /// it (its row in `offlineMutations.db`).
    var mutation: String?
    /// For `heard`: the record's `_version` as the subscription delivered it.
    var version: Int?
    /// For `heard`: the subscription (`onUpdateNote`) and the number of its `subscribe` call in
    /// this process (`onUpdateNote#4`); each call is a subscription of its own.
    var subscription: String?
    /// For `heard`: the subscription's connection, from 0, counted up each time the server
    /// acknowledged the subscription again (after a lost connection, on a new one).
    var connection: Int?

    /// The write of operation `sequence` of process `incarnation` of `device`, and its
    /// operation id (`d<device>.<incarnation>.<sequence>`, also its `op`); its record and kind
    /// are filled in as it is made.
    static func write(device: Int, incarnation: Int, sequence: Int) -> (entry: OperationLogEntry, op: String) {
        let op = "d\(device).\(incarnation).\(sequence)"
        return (
            OperationLogEntry(entry: .write, device: device, incarnation: incarnation, sequence: sequence, op: op), op
        )
    }
}

/// A file of ``OperationLogEntry`` lines, one JSON object each, appended and synced to disk one
/// line at a time, so that what it holds was acknowledged even when the process is killed right
/// after.
final class OperationLog: Sendable {
    private let descriptor: Int32
    private let lock = Mutex(())
    private let synced: Bool
    let url: URL

    /// Opens `url` for appending, creating it when missing. With `synced` `false` a line is
    /// written without waiting for the disk: it outlives the process being killed, not the
    /// machine stopping (for what subscriptions delivered, which is no acknowledgement).
    ///
    /// - Throws: ``ChaosError`` naming the file when it cannot be opened.
    init(appendingTo url: URL, synced: Bool = true) throws {
        self.url = url
        self.synced = synced
        descriptor = open(url.path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else {
            throw ChaosError("Cannot open the operation log \(url.path) (errno \(errno)).")
        }
    }

    deinit { close(descriptor) }

    /// Appends `entry` as one line and, when the log is synced, waits until it is on disk.
    ///
    /// - Throws: ``ChaosError`` when the line cannot be written or synced.
    func append(_ entry: OperationLogEntry) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        let line = try encoder.encode(entry) + Data("\n".utf8)
        try lock.withLock { _ in
            let written = line.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
            guard written == line.count else {
                throw ChaosError("Cannot append to the operation log \(url.path) (errno \(errno)).")
            }
            guard !synced || fsync(descriptor) == 0 else {
                throw ChaosError("Cannot sync the operation log \(url.path) (errno \(errno)).")
            }
        }
    }

    /// Appends `entry` from a callback that cannot throw (a conflict handler, a subscription);
    /// a failure is written to standard error, where the run's output files keep it.
    func appendOrReport(_ entry: OperationLogEntry) {
        do {
            try append(entry)
        } catch {
            FileHandle.standardError.write(Data("\(error)\n".utf8))
        }
    }

    /// The complete lines of the log at `url`; a last line without its newline, which a
    /// process killed mid-write leaves, was never acknowledged and is left out.
    ///
    /// - Throws: ``ChaosError`` naming the file and line when a complete line is not an entry.
    static func entries(at url: URL) throws -> [OperationLogEntry] {
        guard FileManager.default.fileExists(atPath: url.path) else { return [] }
        let data = try Data(contentsOf: url)
        var lines = data.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false)
        // After the last newline: empty, or a line whose write did not end.
        lines.removeLast()
        let decoder = JSONDecoder()
        return try lines.enumerated().map { number, line in
            do {
                return try decoder.decode(OperationLogEntry.self, from: Data(line))
            } catch {
                throw ChaosError(
                    "Line \(number + 1) of the operation log \(url.path) is not an entry: "
                        + "\(String(decoding: line, as: UTF8.self)) (\(error))"
                )
            }
        }
    }
}

/// A chaos run could not be set up or went wrong outside what it checks.
struct ChaosError: Error, CustomStringConvertible, Sendable {
    let description: String

    init(_ description: String) {
        self.description = description
    }
}
