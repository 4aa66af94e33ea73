import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// An external program the server hands a JSON document to and reads an answer from: custom
/// conflict handlers and REST handlers run by `stratus serve`.
///
/// The program is looked up in `PATH`; its standard input is a socket (a command that exits
/// without reading cannot raise SIGPIPE in the server), its streams are read on threads of their
/// own, never on the concurrency pool, and a command that outlives `timeout` is killed.
struct ExternalCommand: Sendable {
    var arguments: [String]
    var workingDirectory: URL?
    var timeout: Duration

    /// Why a run failed, worded to follow the command's name: "exited with status 3: …".
    struct Failure: Error, Sendable, CustomStringConvertible {
        var problem: String
        var description: String { problem }
    }

    /// Serializes launches: Foundation's `Process.run` is not safe to call from several threads.
    private static let launches = Mutex(())

    /// Runs the command with `input` on its standard input and returns its standard output.
    ///
    /// - Throws: ``Failure`` when it cannot start, times out (it is then killed) or exits with a
    ///   non-zero status or by a signal.
    func run(input: Data) async throws(Failure) -> Data {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = arguments
        if let workingDirectory { process.currentDirectoryURL = workingDirectory }
        // Standard input is a socket, not a pipe, so that writing to a command that exits without
        // reading fails with EPIPE instead of raising SIGPIPE in the server.
        guard let sockets = Self.makeSocketPair() else {
            throw Failure(problem: "could not start: no socket for its standard input (errno \(errno)).")
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
            throw Failure(problem: "could not start: \(detail).")
        case .timedOut:
            throw Failure(problem: "did not answer within \(timeout.formattedSeconds) seconds and was stopped.")
        case .exited(let status, let signaled, let output, let errorOutput):
            guard status == 0, !signaled else {
                let message = String(decoding: errorOutput, as: UTF8.self).trimmingCharacters(
                    in: .whitespacesAndNewlines
                )
                let detail = message.isEmpty ? "" : ": " + String(message.suffix(500))
                let how = signaled ? "was killed by signal \(status)" : "exited with status \(status)"
                throw Failure(problem: "\(how)\(detail)")
            }
            return output
        }
    }
}

extension ExternalCommand {
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

/// One run of an external command: its exit, its output, or its timeout, whichever
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
