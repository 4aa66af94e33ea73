import Foundation
import Subprocess
import Synchronization

#if canImport(SystemPackage)
    import SystemPackage
#else
    import System
#endif

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// An external program the server hands a JSON document to and reads an answer from: custom
/// conflict handlers and REST handlers run by `stratus serve`.
///
/// The program is looked up in `PATH` and launched through swift-subprocess, which is safe to
/// call from any thread. Its standard input is a socket (a command that exits without reading
/// cannot raise SIGPIPE in the server) written on a thread of its own; its output is read
/// asynchronously up to ``outputLimit`` bytes; a command that outlives `timeout` is killed.
struct ExternalCommand: Sendable {
    var arguments: [String]
    var workingDirectory: URL?
    var timeout: Duration

    /// The most a command may write on its standard output before it is stopped.
    static let outputLimit = 64 << 20

    /// Why a run failed, worded to follow the command's name: "exited with status 3: …".
    struct Failure: Error, Sendable, CustomStringConvertible {
        var problem: String
        /// Whether the command ran past its timeout and was killed.
        var timedOut = false
        /// How the command ended, in Lambda's words (`exit status 3`, `signal: 9`); `nil` when
        /// it did not start or was stopped for its output.
        var termination: String?
        /// What the command wrote on its standard output before it failed.
        var output: [UInt8] = []
        /// What the command wrote on its standard error before it failed.
        var errorOutput: [UInt8] = []
        var description: String { problem }
    }

    /// Runs the command with `input` on its standard input and returns its standard output.
    ///
    /// - Throws: ``Failure`` when it cannot start, times out (it is then killed), writes more
    ///   than ``outputLimit`` bytes, or exits with a non-zero status or by a signal.
    func run(input: Data) async throws(Failure) -> Data {
        try await runKeepingErrors(input: input).output
    }

    /// Runs the command as ``run(input:)`` does, and answers what it wrote on its standard
    /// error besides its standard output.
    func runKeepingErrors(input: Data) async throws(Failure) -> (output: Data, errorOutput: [UInt8]) {
        // Standard input is a socket, not a pipe, so that writing to a command that exits without
        // reading fails with EPIPE instead of raising SIGPIPE in the server.
        guard let sockets = Self.makeSocketPair() else {
            throw Failure(problem: "could not start: no socket for its standard input (errno \(errno)).")
        }
        let inputSocket = sockets[1]
        let configuration = Configuration(
            executable: .path("/usr/bin/env"),
            arguments: Arguments(arguments),
            workingDirectory: workingDirectory.map { FilePath($0.path(percentEncoded: false)) }
        )
        let watch = Watch()
        // The timeout is judged by the command's own state, not by which task the scheduler runs
        // first: when it fires, a command still running is killed, and only a command that then
        // ends by that kill has timed out.
        let timer = Task { [timeout] in
            try await Task.sleep(for: timeout)
            watch.expire()
        }
        defer { timer.cancel() }
        let outcome: Outcome
        do {
            let result = try await Subprocess.run(
                configuration,
                input: .fileDescriptor(FileDescriptor(rawValue: sockets[0]), closeAfterSpawningProcess: true),
                output: .bytes(limit: Self.outputLimit),
                error: .bytes(limit: Self.outputLimit)
            ) { execution in
                watch.started(execution.processIdentifier.value)
                // Written on a thread of its own: a command that does not read must not hold a
                // thread of the concurrency pool.
                Thread.detachNewThread {
                    Self.send(input, to: inputSocket)
                    close(inputSocket)
                }
            }
            let timedOut = watch.finish()
            if timedOut, result.terminationStatus == .signaled(SIGKILL) {
                outcome = .timedOut
            } else {
                outcome = .exited(result.terminationStatus, result.standardOutput, result.standardError)
            }
        } catch let error as SubprocessError {
            if !watch.isStarted { close(inputSocket) }
            if error.code == .outputLimitExceeded {
                throw Failure(problem: "wrote more than \(Self.outputLimit >> 20) MiB and was stopped.")
            }
            throw Failure(problem: "could not start: \(error).")
        } catch {
            if !watch.isStarted { close(inputSocket) }
            throw Failure(problem: "could not start: \(error).")
        }
        switch outcome {
        case .timedOut:
            throw Failure(
                problem: "did not answer within \(timeout.formattedSeconds) seconds and was stopped.",
                timedOut: true
            )
        case .exited(let status, let output, let errorOutput):
            switch status {
            case .exited(0):
                return (Data(output), errorOutput)
            case .exited(let code):
                throw Failure(
                    problem: "exited with status \(code)\(Self.detail(errorOutput))",
                    termination: "exit status \(code)",
                    output: output,
                    errorOutput: errorOutput
                )
            case .signaled(let signal):
                throw Failure(
                    problem: "was killed by signal \(signal)\(Self.detail(errorOutput))",
                    termination: "signal: \(signal)",
                    output: output,
                    errorOutput: errorOutput
                )
            }
        }
    }

    /// A run's command as its timer sees it: started (the input's writer then owns the input
    /// socket), finished, or killed for running past its time.
    private final class Watch: Sendable {
        private struct State {
            var process: pid_t?
            var finished = false
            var expired = false
        }

        private let state = Mutex(State())

        var isStarted: Bool { state.withLock { $0.process != nil } }

        func started(_ process: pid_t) {
            state.withLock { state in
                state.process = process
                // The time ran out while it was being launched.
                if state.expired { kill(process, SIGKILL) }
            }
        }

        /// Kills the command if it is still running; it then counts as timed out.
        func expire() {
            state.withLock { state in
                guard !state.finished else { return }
                state.expired = true
                if let process = state.process { kill(process, SIGKILL) }
            }
        }

        /// Marks the run finished; `true` when the timer killed the command.
        func finish() -> Bool {
            state.withLock { state in
                state.finished = true
                return state.expired
            }
        }
    }

    /// How a run settled: the command's exit with what it wrote, or the timeout.
    private enum Outcome: Sendable {
        case exited(TerminationStatus, [UInt8], [UInt8])
        case timedOut
    }

    /// The end of what the command wrote on its standard error, after a colon, or nothing.
    private static func detail(_ errorOutput: [UInt8]) -> String {
        let message = String(decoding: errorOutput, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        return message.isEmpty ? "" : ": " + String(message.suffix(500))
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

extension Duration {
    /// The duration in seconds, without a fraction when it has none: `5`, `0.5`.
    fileprivate var formattedSeconds: String {
        let seconds = Double(components.seconds) + Double(components.attoseconds) / 1e18
        return seconds == seconds.rounded() ? String(Int(seconds)) : String(seconds)
    }
}
