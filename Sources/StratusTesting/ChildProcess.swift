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

/// A program a test starts and talks to: the `stratus` command, Python references, moto, or the
/// test binary itself, launched through swift-subprocess (safe from any thread, unlike
/// Foundation's `Process`).
///
/// A child started with the default ``Tie/supervised`` cannot outlive the test process, even
/// when that process crashes or is killed: it runs under a small supervisor whose standard input
/// is a pipe that only this process holds open. When this process ends in any way, the kernel
/// closes the pipe, and the supervisor kills the child; when the supervisor itself is killed, the
/// kernel's parent-death signal kills the child.
///
/// ```swift
/// let server = try await ChildProcess.start(["stratus", "serve", "--port", "0"], in: directory, output: log)
/// let status = try await server.stop()
/// ```
public final class ChildProcess: Sendable {
    /// How a child ended.
    public enum Status: Sendable, Hashable, CustomStringConvertible {
        /// It exited with this code.
        case exited(Int32)
        /// A signal ended it.
        case signaled(Int32)

        public var description: String {
            switch self {
            case .exited(let code): "exited with status \(code)"
            case .signaled(let signal): "was killed by signal \(signal)"
            }
        }
    }

    /// How a child is tied to the life of the test process.
    public enum Tie: Sendable {
        /// Under a supervisor that kills it when the test process ends (see ``ChildProcess``).
        case supervised
        /// Its standard input is the pipe only the test process holds open: for a program that
        /// ends by itself when its standard input ends.
        case standardInput
        /// Not tied: for a program that ends by itself soon, or that a test kills itself and
        /// must see die at once.
        case none
    }

    /// What a child that ran to its end wrote and how it ended.
    public struct Result: Sendable {
        public var status: Status
        public var output: Data
        public var errorOutput: Data

        /// The standard output as text.
        public var outputText: String { String(decoding: output, as: UTF8.self) }
        /// The standard error as text.
        public var errorText: String { String(decoding: errorOutput, as: UTF8.self) }

        /// The module a Python program could not import (`No module named 'gql'`), if that is
        /// why it failed.
        public var missingPythonModule: String? {
            guard status != .exited(0), let range = errorText.range(of: "No module named '") else { return nil }
            let rest = errorText[range.upperBound...]
            return rest.firstIndex(of: "'").map { String(rest[..<$0]) }
        }
    }

    /// A child that could not be started or did not behave.
    public struct Failure: Error, CustomStringConvertible, Sendable {
        public var description: String
    }

    /// The arguments the child was started with, the program first.
    public let arguments: [String]
    /// The supervisor's process identifier when supervised, else the child's.
    public let processIdentifier: pid_t
    private let termination: Task<Status, any Error>
    private let ended = Atomic<Bool>(false)

    private init(arguments: [String], processIdentifier: pid_t, termination: Task<Status, any Error>) {
        self.arguments = arguments
        self.processIdentifier = processIdentifier
        self.termination = termination
    }

    /// Whether the child is still running.
    public var isRunning: Bool { !ended.load(ordering: .acquiring) }

    /// Starts `arguments[0]` (a name looked up in `PATH`, or a path) with the rest as its
    /// arguments, in `directory`, with `environment` added to this process's environment.
    /// Standard output goes to the file `output` (created or truncated), standard error to
    /// `errorOutput`, or to `output` as well when it is `nil`; both are discarded without files.
    ///
    /// - Throws: ``Failure`` when the program cannot be started.
    public static func start(
        _ arguments: [String],
        environment: [String: String] = [:],
        in directory: URL? = nil,
        output: URL? = nil,
        errorOutput: URL? = nil,
        tie: Tie = .supervised
    ) async throws -> ChildProcess {
        precondition(!arguments.isEmpty, "ChildProcess.start needs at least the program to run.")
        let outputDescriptor = try output.map(openForWriting) ?? openDevNull()
        let errorDescriptor =
            try errorOutput.map(openForWriting)
            ?? (output == nil ? openDevNull() : fcntl(outputDescriptor, F_DUPFD_CLOEXEC, 0))
        let command = tie == .supervised ? ["python3", "-c", supervisor] + arguments : arguments
        let configuration = Self.configuration(command, environment: environment, in: directory)
        let input: FileDescriptorInput =
            tie == .none
            ? .fileDescriptor(FileDescriptor(rawValue: try openDevNull()), closeAfterSpawningProcess: true)
            : .fileDescriptor(FileDescriptor(rawValue: lifeline), closeAfterSpawningProcess: false)
        let started = AsyncStream<Swift.Result<pid_t, any Error>>.makeStream()
        let termination = Task<Status, any Error> {
            do {
                let result = try await Subprocess.run(
                    configuration,
                    input: input,
                    output: .fileDescriptor(
                        FileDescriptor(rawValue: outputDescriptor),
                        closeAfterSpawningProcess: true
                    ),
                    error: .fileDescriptor(FileDescriptor(rawValue: errorDescriptor), closeAfterSpawningProcess: true)
                ) { execution in
                    started.continuation.yield(.success(execution.processIdentifier.value))
                    started.continuation.finish()
                }
                return Status(result.terminationStatus)
            } catch {
                started.continuation.yield(.failure(error))
                started.continuation.finish()
                throw error
            }
        }
        var iterator = started.stream.makeAsyncIterator()
        guard let launch = await iterator.next() else {
            throw Failure(description: "\(arguments.joined(separator: " ")) did not start.")
        }
        switch launch {
        case .failure(let error):
            throw Failure(description: "Could not start \(arguments.joined(separator: " ")): \(error)")
        case .success(let pid):
            let child = ChildProcess(arguments: arguments, processIdentifier: pid, termination: termination)
            Task { [termination] in
                _ = try? await termination.value
                child.ended.store(true, ordering: .releasing)
            }
            return child
        }
    }

    /// Runs `arguments` to their end with `input` on standard input and returns what it wrote.
    ///
    /// The input is read from a file, not written into a pipe: a program that ends without
    /// reading all of it (a Python reference failing at its import) is an ordinary result,
    /// never a write into a closed pipe.
    ///
    /// - Throws: ``Failure`` when the input cannot be staged or the program cannot be started.
    public static func run(
        _ arguments: [String],
        input: Data = Data(),
        environment: [String: String] = [:],
        in directory: URL? = nil
    ) async throws -> Result {
        precondition(!arguments.isEmpty, "ChildProcess.run needs at least the program to run.")
        let configuration = Self.configuration(arguments, environment: environment, in: directory)
        let inputDescriptor = try openForReading(input)
        do {
            let result = try await Subprocess.run(
                configuration,
                input: .fileDescriptor(FileDescriptor(rawValue: inputDescriptor), closeAfterSpawningProcess: true),
                output: .bytes(limit: 256 << 20),
                error: .bytes(limit: 16 << 20)
            )
            let finished = Result(
                status: Status(result.terminationStatus),
                output: Data(result.standardOutput),
                errorOutput: Data(result.standardError)
            )
            if let module = finished.missingPythonModule {
                FileHandle.standardError.write(
                    Data(
                        ("The Python module '\(module)' that a test compares against is not installed. "
                            + "Run `python3 -m pip install -r Tests/requirements.txt` (scripts/test does).\n").utf8
                    )
                )
            }
            return finished
        } catch {
            throw Failure(description: "Could not run \(arguments.joined(separator: " ")): \(error)")
        }
    }

    /// Sends `signal` to the child (to the supervisor, which passes SIGTERM and SIGINT on).
    public func send(signal: Int32) {
        guard isRunning else { return }
        #if canImport(Glibc)
            _ = Glibc.kill(processIdentifier, signal)
        #else
            _ = Darwin.kill(processIdentifier, signal)
        #endif
    }

    /// Waits for the child to end by itself.
    public func wait() async throws -> Status {
        try await termination.value
    }

    /// Waits at most `timeout` for the child to end by itself; `nil` when it is still running.
    public func wait(timeout: Duration) async throws -> Status? {
        let deadline = ContinuousClock.now + timeout
        while isRunning, ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(10)) }
        return isRunning ? nil : try await termination.value
    }

    /// Sends SIGTERM, waits up to `grace` for the child to end, then kills it.
    @discardableResult
    public func stop(grace: Duration = .seconds(5)) async throws -> Status {
        send(signal: SIGTERM)
        if let status = try await wait(timeout: grace) { return status }
        send(signal: SIGKILL)
        return try await termination.value
    }

    /// Kills the child at once without waiting, as a last resort when it is abandoned.
    public func kill() {
        send(signal: SIGKILL)
    }
}

extension ChildProcess {
    /// The supervisor run in front of a child: it starts the command with `/dev/null` as its
    /// input and a parent-death signal, passes SIGTERM and SIGINT on, kills the command when its
    /// own standard input (the lifeline) reaches its end, and ends as the command ended.
    static let supervisor = """
        import ctypes, os, signal, subprocess, sys, threading
        libc = ctypes.CDLL(None, use_errno=True)
        def tie():
            libc.prctl(1, signal.SIGKILL)
            if os.getppid() == 1:
                os._exit(137)
        try:
            child = subprocess.Popen(sys.argv[1:], stdin=subprocess.DEVNULL, preexec_fn=tie)
        except OSError as error:
            print(f"could not start {sys.argv[1]}: {error}", file=sys.stderr)
            sys.exit(127)
        for name in (signal.SIGTERM, signal.SIGINT):
            signal.signal(name, lambda number, _: child.send_signal(number))
        def watch():
            while os.read(0, 4096):
                pass
            child.kill()
        threading.Thread(target=watch, daemon=True).start()
        code = child.wait()
        if code < 0:
            if -code != signal.SIGKILL:
                signal.signal(-code, signal.SIG_DFL)
            os.kill(os.getpid(), -code)
        sys.exit(code)
        """

    /// The read end of a pipe whose write end this process holds until it ends, in any way.
    private static let lifeline: Int32 = {
        var ends: [Int32] = [0, 0]
        let created = pipe(&ends)
        for end in ends { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }
        precondition(created == 0, "Could not create the pipe that ties children to the test process (errno \(errno)).")
        return ends[0]
    }()

    /// `command[0]` (a name looked up in `PATH`, or a path) with the rest as its arguments, in
    /// `directory`, with `values` added to this process's environment.
    private static func configuration(
        _ command: [String],
        environment values: [String: String],
        in directory: URL?
    ) -> Configuration {
        let program = command[0]
        var merged = ProcessInfo.processInfo.environment
        for (key, value) in values { merged[key] = value }
        return Configuration(
            executable: program.contains("/") ? .path(FilePath(program)) : .name(program),
            arguments: Arguments(Array(command.dropFirst())),
            environment: .custom(
                Dictionary(uniqueKeysWithValues: merged.map { (Environment.Key(rawValue: $0.key)!, $0.value) })
            ),
            workingDirectory: directory.map { FilePath($0.path(percentEncoded: false)) }
        )
    }

    private static func openForWriting(_ url: URL) throws -> Int32 {
        let descriptor = open(url.path(percentEncoded: false), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else {
            throw Failure(
                description: "Could not open \(url.path(percentEncoded: false)) for writing (errno \(errno))."
            )
        }
        return descriptor
    }

    /// A descriptor reading `data` from its start: an unlinked temporary file holding it.
    private static func openForReading(_ data: Data) throws -> Int32 {
        let path = FileManager.default.temporaryDirectory
            .appending(path: "stratus-input-\(UUID().uuidString)").path(percentEncoded: false)
        let descriptor = open(path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else {
            throw Failure(description: "Could not create \(path) for a child's input (errno \(errno)).")
        }
        unlink(path)
        let written = data.withUnsafeBytes { bytes -> Bool in
            var offset = 0
            while offset < bytes.count {
                let count = write(descriptor, bytes.baseAddress! + offset, bytes.count - offset)
                if count < 0, errno == EINTR { continue }
                guard count > 0 else { return false }
                offset += count
            }
            return true
        }
        guard written, lseek(descriptor, 0, SEEK_SET) == 0 else {
            let code = errno
            close(descriptor)
            throw Failure(description: "Could not stage \(data.count) bytes of a child's input (errno \(code)).")
        }
        return descriptor
    }

    private static func openDevNull() throws -> Int32 {
        let descriptor = open("/dev/null", O_RDWR | O_CLOEXEC)
        guard descriptor >= 0 else { throw Failure(description: "Could not open /dev/null (errno \(errno)).") }
        return descriptor
    }
}

extension ChildProcess.Status {
    init(_ status: TerminationStatus) {
        switch status {
        case .exited(let code): self = .exited(code)
        case .signaled(let signal): self = .signaled(signal)
        }
    }
}
