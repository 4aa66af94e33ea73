import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A custom conflict handler that is an external command, as `stratus serve` runs one.
///
/// On each conflict the server starts the command, writes one JSON document to its standard
/// input — AppSync's Lambda conflict handler payload plus `typeName` — and reads one JSON
/// document from its standard output:
///
/// ```json
/// {"typeName": "Post", "resolver": "updatePost",
///  "newItem": {"id": "p1", "title": "Mine", "_version": 1},
///  "existingItem": {"id": "p1", "title": "Theirs", "_version": 2, "_deleted": null,
///                   "_lastChangedAt": 1700000000000, "__typename": "Post"},
///  "arguments": {"input": {"id": "p1", "title": "Mine", "_version": 1}},
///  "identity": {"authorizationMode": "API_KEY", "claims": {}}}
/// ```
///
/// The answer is `{"action": "RESOLVE", "resolvedItem": {…}}` (store this item with the server's
/// version plus one), `{"action": "REJECT"}` (fail the write with `ConflictUnhandled` and the
/// server's item) or `{"action": "REMOVE"}` (delete the item, leaving a tombstone), as with
/// ``ConflictResolution``. A command that cannot start, does not answer within ``timeout`` (it
/// is then killed), exits with a non-zero status or answers anything else fails the write with
/// `ConflictUnhandled` and a message naming the command and the problem; nothing is written.
///
/// ```swift
/// let command = ConflictHandlerCommand(arguments: ["python3", "resolve.py"])
/// configuration.modelConflictResolution["Post"] = .custom(command.handler)
/// ```
public struct ConflictHandlerCommand: Sendable, Hashable {
    /// The program and its arguments; the program is looked up in `PATH`.
    public var arguments: [String]
    /// The directory the command runs in; `nil` for the server's.
    public var workingDirectory: URL?
    /// How long the command may take to answer.
    public var timeout: Duration

    /// Creates a command handler.
    public init(arguments: [String], workingDirectory: URL? = nil, timeout: Duration = .seconds(5)) {
        precondition(!arguments.isEmpty, "A conflict handler command needs at least a program name.")
        self.arguments = arguments
        self.workingDirectory = workingDirectory
        self.timeout = timeout
    }

    /// The command as a ``ConflictHandler``.
    public var handler: ConflictHandler {
        { context in try await decide(context) }
    }

    /// Runs the command for one conflict and returns its decision.
    ///
    /// - Throws: ``ConflictHandlerError`` when the command fails or answers nothing usable.
    public func decide(_ context: ConflictContext) async throws(ConflictHandlerError) -> ConflictResolution {
        let output = try await run(input: Data(Self.payload(context).text.utf8))
        return try answer(output)
    }

    /// The document the command reads.
    static func payload(_ context: ConflictContext) -> JSON {
        [
            "typeName": .string(context.typeName),
            "resolver": .string(context.resolver),
            "newItem": .object(context.newItem),
            "existingItem": .object(context.existingItem),
            "arguments": .object(context.arguments),
            "identity": [
                "authorizationMode": .string(context.identity.authorizationMode.rawValue),
                "claims": .object(context.identity.claims),
            ],
        ]
    }

    private var name: String {
        "`" + arguments.joined(separator: " ") + "`"
    }

    private func failure(_ problem: String) -> ConflictHandlerError {
        ConflictHandlerError("The conflict handler command \(name) \(problem)")
    }

    private func answer(_ output: Data) throws(ConflictHandlerError) -> ConflictResolution {
        let text = String(decoding: output, as: UTF8.self)
        let excerpt = text.count > 200 ? String(text.prefix(200)) + "…" : text
        guard case .object(let object)? = try? JSON(parsing: text), let action = object["action"]?.stringValue else {
            throw failure(
                "answered \(text.isEmpty ? "nothing" : "'\(excerpt)'"), not a JSON object with an \"action\". "
                    + #"Answer {"action":"RESOLVE","resolvedItem":{…}}, {"action":"REJECT"} or {"action":"REMOVE"}."#
            )
        }
        switch action {
        case "RESOLVE":
            guard let item = object["resolvedItem"]?.objectValue else {
                throw failure("answered RESOLVE without a \"resolvedItem\" object.")
            }
            return .resolve(item)
        case "REJECT":
            return .reject
        case "REMOVE":
            return .remove
        default:
            throw failure("answered the unknown action '\(action)'. Answer RESOLVE, REJECT or REMOVE.")
        }
    }

    // MARK: - Process

    /// Serializes launches of conflict handler commands.
    private static let launches = Mutex(())

    private func run(input: Data) async throws(ConflictHandlerError) -> Data {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = arguments
        if let workingDirectory { process.currentDirectoryURL = workingDirectory }
        // Standard input is a socket, not a pipe, so that writing to a command that exits without
        // reading fails with EPIPE instead of raising SIGPIPE in the server.
        guard let sockets = Self.makeSocketPair() else {
            throw failure("could not start: no socket for its standard input (errno \(errno)).")
        }
        let stdin = FileHandle(fileDescriptor: sockets[0], closeOnDealloc: true)
        let inputSocket = sockets[1]
        let stdout = Pipe()
        let stderr = Pipe()
        process.standardInput = stdin
        process.standardOutput = stdout
        process.standardError = stderr
        let run = CommandRun()
        process.terminationHandler = { process in
            run.exited(process.terminationStatus, reason: process.terminationReason)
        }
        let outcome = await withCheckedContinuation { continuation in
            run.start(continuation)
            do {
                // Foundation's Process.run is not safe to call from several threads at once.
                try Self.launches.withLock { _ in try process.run() }
            } catch {
                close(inputSocket)
                run.finish(.failedToStart(String(describing: error)))
                return
            }
            try? stdin.close()
            let pid = process.processIdentifier
            // Standard streams are read and written on threads of their own, never on the
            // concurrency pool.
            Thread.detachNewThread {
                Self.send(input, to: inputSocket)
                close(inputSocket)
            }
            Thread.detachNewThread { run.output(stdout.fileHandleForReading.readDataToEndOfFile()) }
            Thread.detachNewThread { run.errorOutput(stderr.fileHandleForReading.readDataToEndOfFile()) }
            let timeout = timeout
            run.watch(
                Task {
                    try? await Task.sleep(for: timeout)
                    if !Task.isCancelled, run.finish(.timedOut) { kill(pid, SIGKILL) }
                }
            )
        }
        switch outcome {
        case .failedToStart(let detail):
            throw failure("could not start: \(detail).")
        case .timedOut:
            throw failure("did not answer within \(timeout.formattedSeconds) seconds and was stopped.")
        case .exited(let status, let signaled, let output, let errorOutput):
            guard status == 0, !signaled else {
                let message = String(decoding: errorOutput, as: UTF8.self).trimmingCharacters(
                    in: .whitespacesAndNewlines
                )
                let detail = message.isEmpty ? "" : ": " + String(message.suffix(500))
                let how = signaled ? "was killed by signal \(status)" : "exited with status \(status)"
                throw failure("\(how)\(detail)")
            }
            return output
        }
    }
}

extension ConflictHandlerCommand {
    /// Two connected sockets, closed on exec, that never raise SIGPIPE when written to.
    fileprivate static func makeSocketPair() -> [Int32]? {
        var sockets: [Int32] = [0, 0]
        #if os(Linux)
            let type = Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue)
        #else
            let type = SOCK_STREAM
        #endif
        guard socketpair(AF_UNIX, type, 0, &sockets) == 0 else { return nil }
        #if !os(Linux)
            var on: Int32 = 1
            for socket in sockets {
                _ = fcntl(socket, F_SETFD, FD_CLOEXEC)
                _ = setsockopt(socket, SOL_SOCKET, SO_NOSIGPIPE, &on, socklen_t(MemoryLayout<Int32>.size))
            }
        #endif
        return sockets
    }

    /// Writes all of `data` to `socket`, or as much as the reader takes before it closes.
    fileprivate static func send(_ data: Data, to socket: Int32) {
        data.withUnsafeBytes { buffer in
            guard let base = buffer.baseAddress else { return }
            var offset = 0
            while offset < buffer.count {
                #if os(Linux)
                    let written = Glibc.send(socket, base + offset, buffer.count - offset, Int32(MSG_NOSIGNAL))
                #else
                    let written = Darwin.send(socket, base + offset, buffer.count - offset, 0)
                #endif
                if written < 0 {
                    if errno == EINTR { continue }
                    return
                }
                offset += written
            }
        }
    }
}

/// A custom conflict handler that failed rather than decided.
///
/// The write fails with `ConflictUnhandled`, this error's message and the server's item; a
/// handler that throws any other error rejects the write like ``ConflictResolution/reject``.
public struct ConflictHandlerError: Error, Sendable, CustomStringConvertible {
    /// What failed, for the client and the log.
    public var message: String

    /// Creates an error with `message`.
    public init(_ message: String) {
        self.message = message
    }

    public var description: String { message }
}

/// One run of a conflict handler command: its exit, its output, or its timeout, whichever
/// settles it first.
private final class CommandRun: Sendable {
    enum Outcome: Sendable {
        case failedToStart(String)
        case timedOut
        case exited(Int32, signaled: Bool, output: Data, errorOutput: Data)
    }

    private struct State {
        var continuation: CheckedContinuation<Outcome, Never>?
        var status: (Int32, Bool)?
        var output: Data?
        var errorOutput: Data?
        var timer: Task<Void, Never>?
        var finished = false
    }

    private let state = Mutex(State())

    func start(_ continuation: CheckedContinuation<Outcome, Never>) {
        state.withLock { $0.continuation = continuation }
    }

    func watch(_ timer: Task<Void, Never>) {
        let finished = state.withLock { state in
            state.timer = timer
            return state.finished
        }
        if finished { timer.cancel() }
    }

    func exited(_ status: Int32, reason: Process.TerminationReason) {
        state.withLock { $0.status = (status, reason == .uncaughtSignal) }
        finishIfComplete()
    }

    func output(_ data: Data) {
        state.withLock { $0.output = data }
        finishIfComplete()
    }

    func errorOutput(_ data: Data) {
        state.withLock { $0.errorOutput = data }
        finishIfComplete()
    }

    private func finishIfComplete() {
        let outcome: Outcome? = state.withLock { state in
            guard let (status, signaled) = state.status, let output = state.output, let errorOutput = state.errorOutput
            else { return nil }
            return .exited(status, signaled: signaled, output: output, errorOutput: errorOutput)
        }
        if let outcome { finish(outcome) }
    }

    /// Settles the run with `outcome` unless it is settled already; `true` if this call did.
    @discardableResult
    func finish(_ outcome: Outcome) -> Bool {
        let (continuation, timer) = state.withLock {
            state -> (CheckedContinuation<Outcome, Never>?, Task<Void, Never>?) in
            guard !state.finished else { return (nil, nil) }
            state.finished = true
            defer { state.continuation = nil }
            return (state.continuation, state.timer)
        }
        guard let continuation else { return false }
        timer?.cancel()
        continuation.resume(returning: outcome)
        return true
    }
}

extension Duration {
    /// The duration in seconds, without a fraction when it has none: `5`, `0.5`.
    fileprivate var formattedSeconds: String {
        let seconds = Double(components.seconds) + Double(components.attoseconds) / 1e18
        return seconds == seconds.rounded() ? String(Int(seconds)) : String(seconds)
    }
}
