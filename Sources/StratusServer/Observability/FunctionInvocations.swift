import Foundation
import Synchronization

/// The last invocations of the server's local functions, oldest dropped first: what the
/// console's Functions page shows (`GET /console/api/functions`).
///
/// Each invocation is kept from the moment it is sent: its function, its event, then its result
/// or error, the time it took, and the lines the function wrote while it ran:
///
/// - a `command` function's standard error, whole (its standard output is the result);
/// - a `runtime` function's standard output and standard error, line by line, given to the
///   invocation its process held when the server read the line; a line read after the process
///   answered, and before it was handed its next invocation, still goes to the one it answered.
///   A runtime must write its lines unbuffered (awslambdaric does) for them to arrive in time;
///   what a process writes before its first invocation belongs to none and is only in the
///   server's standard error, where every line of a runtime also goes.
///
/// A server keeps them when its configuration gives it a record (`stratus serve` does with the
/// console):
///
/// ```swift
/// let invocations = FunctionInvocations()
/// var configuration = ServerConfiguration()
/// configuration.functionInvocations = invocations
/// // … later, newest first:
/// for invocation in invocations.records {
///     print(invocation.function, invocation.durationMilliseconds ?? "running", invocation.logLines)
/// }
/// ```
public final class FunctionInvocations: Sendable {
    /// How many invocations are kept unless told otherwise.
    public static let defaultCapacity = 200
    /// The largest event or result kept as it is; a larger one is kept as a note of its size.
    public static let maxKeptBytes = 64 * 1024
    /// The most log lines kept of one invocation; the later ones are counted, not kept.
    public static let maxKeptLines = 200

    /// How many invocations are kept.
    public let capacity: Int
    private let state: Mutex<Ring>

    private struct Ring {
        var records: [FunctionInvocation] = []
        /// Where the next record goes once ``records`` is full.
        var oldest = 0
        var lastSequence = 0
        /// The index in ``records`` of each kept invocation, by request id.
        var index: [String: Int] = [:]
    }

    /// A record of the last `capacity` invocations.
    public init(capacity: Int = FunctionInvocations.defaultCapacity) {
        precondition(capacity > 0, "A function record keeps at least one invocation; it was given \(capacity).")
        self.capacity = capacity
        state = Mutex(Ring())
    }

    /// Keeps a new invocation of `function` with `event`, numbered after the last one.
    func begin(requestID: String, function: String, event: JSON, time: Date) {
        state.withLock { ring in
            ring.lastSequence += 1
            let record = FunctionInvocation(
                sequence: ring.lastSequence,
                requestID: requestID,
                function: function,
                time: time,
                event: Self.kept(event)
            )
            if ring.records.count < capacity {
                ring.index[requestID] = ring.records.count
                ring.records.append(record)
            } else {
                ring.index[ring.records[ring.oldest].requestID] = nil
                ring.index[requestID] = ring.oldest
                ring.records[ring.oldest] = record
                ring.oldest = (ring.oldest + 1) % capacity
            }
        }
    }

    /// Notes how the invocation `requestID` ended, after `duration`.
    func finish(requestID: String, outcome: FunctionInvocation.Outcome, duration: Duration) {
        state.withLock { ring in
            guard let at = ring.index[requestID] else { return }
            switch outcome {
            case .result(let result): ring.records[at].outcome = .result(Self.kept(result))
            default: ring.records[at].outcome = outcome
            }
            let (seconds, attoseconds) = duration.components
            let milliseconds = Double(seconds) * 1000 + Double(attoseconds) / 1e15
            ring.records[at].durationMilliseconds = (milliseconds * 10).rounded() / 10
        }
    }

    /// Adds `lines` the function wrote to the invocation `requestID`, if it is still kept.
    func log(requestID: String, lines: [String]) {
        state.withLock { ring in
            guard let at = ring.index[requestID] else { return }
            for line in lines {
                if ring.records[at].logLines.count < Self.maxKeptLines {
                    ring.records[at].logLines.append(line)
                } else {
                    ring.records[at].droppedLogLines += 1
                }
            }
        }
    }

    /// The invocations kept, newest first.
    public var records: [FunctionInvocation] {
        state.withLock { ring in
            Array((ring.records[ring.oldest...] + ring.records[..<ring.oldest]).reversed())
        }
    }

    /// `value`, or a note of its size when it is over ``maxKeptBytes``.
    private static func kept(_ value: JSON) -> JSON {
        let size = value.data.count
        guard size > maxKeptBytes else { return value }
        return ["omitted": .string("\(size) bytes, more than the \(maxKeptBytes) kept")]
    }
}

/// One invocation as ``FunctionInvocations`` keeps it.
public struct FunctionInvocation: Sendable, Hashable {
    /// How an invocation ended.
    public enum Outcome: Sendable, Hashable {
        /// It has not ended yet.
        case running
        /// The function answered this result.
        case result(JSON)
        /// It failed: the error as the client sees it (`Lambda:Unhandled` with this message),
        /// its type when the handler gave one, and what the server knows besides.
        case error(errorType: String?, message: String, detail: String)
    }

    /// The invocation's number in the record, counting from 1.
    public internal(set) var sequence: Int
    /// The invocation's id, as a runtime receives it in `Lambda-Runtime-Aws-Request-Id`.
    public var requestID: String
    /// The function's name, as `stratus.json`'s `functions` names it.
    public var function: String
    /// When it was sent.
    public var time: Date
    /// The event sent.
    public var event: JSON
    /// How it ended.
    public var outcome: Outcome = .running
    /// How long it took; `nil` while it runs.
    public var durationMilliseconds: Double?
    /// The lines the function wrote during the invocation, as far as they are attributed to it
    /// (see ``FunctionInvocations``).
    public var logLines: [String] = []
    /// Lines written past ``FunctionInvocations/maxKeptLines``, counted only.
    public var droppedLogLines = 0
}
