import Foundation
import HTTPTypes
import Hummingbird
import Logging
import NIOCore
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

/// A long-running function: `concurrency` processes, each started with `AWS_LAMBDA_RUNTIME_API`
/// pointing at a Lambda Runtime API of its own on `127.0.0.1`, which it polls for invocations.
///
/// The Runtime API is the one every Lambda runtime client speaks:
/// - `GET /2018-06-01/runtime/invocation/next` waits for an invocation and answers its event,
///   with `Lambda-Runtime-Aws-Request-Id`, `Lambda-Runtime-Deadline-Ms`,
///   `Lambda-Runtime-Invoked-Function-Arn` and `Lambda-Runtime-Trace-Id`;
/// - `POST /2018-06-01/runtime/invocation/{id}/response` gives its result;
/// - `POST /2018-06-01/runtime/invocation/{id}/error` its error (`errorMessage`, `errorType`);
/// - `POST /2018-06-01/runtime/init/error` a failure to start.
///
/// A process that dies is started again (at once if it had served, after a growing pause of up
/// to 5 seconds if it never asked for an invocation); one whose invocation times out is killed
/// and started again. What the processes write goes to the server's standard error, line by
/// line, and each line to the invocation its process held (``FunctionInvocations``).
final class FunctionRuntime: Sendable {
    let name: String
    let function: LocalFunction
    let arguments: [String]
    let environment: [String: String]
    let dispatcher: FunctionDispatcher
    private let invocations: FunctionInvocations?
    private let log: @Sendable (String) -> Void
    private let processes = ProcessTable()
    /// The output of each slot's current process.
    private let outputs = OutputTable()
    private let tasks = Mutex<[Task<Void, Never>]>([])
    private let stopped = Atomic<Bool>(false)

    init(
        name: String,
        function: LocalFunction,
        arguments: [String],
        environment: [String: String],
        invocations: FunctionInvocations?,
        log: @escaping @Sendable (String) -> Void
    ) {
        self.invocations = invocations
        self.name = name
        self.function = function
        self.arguments = arguments
        self.environment = environment
        self.log = log
        dispatcher = FunctionDispatcher(functionName: name, timeout: function.timeout) { [processes] slot in
            processes.kill(slot: slot)
        }
    }

    /// Starts the processes.
    func start(concurrency: Int) {
        let started = (0..<concurrency).map { slot in
            Task { await self.serve(slot: slot) }
        }
        tasks.withLock { $0 += started }
    }

    /// Runs one invocation, numbered `requestID`.
    func invoke(_ event: JSON, requestID: String) async throws(FunctionFailure) -> JSON {
        let data = try await dispatcher.invoke(event.data, id: requestID).get()
        do {
            return try JSON(parsing: data)
        } catch {
            throw FunctionFailure(
                kind: .invalidResult,
                detail: "The function '\(name)' answered a response that is not JSON: \(error)"
            )
        }
    }

    /// Kills the processes and fails what they had to do.
    func close() {
        stopped.store(true, ordering: .sequentiallyConsistent)
        dispatcher.close()
        processes.killAll()
        for task in tasks.withLock({ $0 }) { task.cancel() }
    }

    // MARK: - Slots

    /// Serves the Runtime API of `slot` and keeps a process polling it.
    private func serve(slot: Int) async {
        let (ports, portContinuation) = AsyncStream<Int>.makeStream()
        let application = Application(
            router: router(slot: slot),
            configuration: ApplicationConfiguration(address: .hostname("127.0.0.1", port: 0)),
            onServerRunning: { channel in
                portContinuation.yield(channel.localAddress?.port ?? 0)
                portContinuation.finish()
            },
            logger: Self.logger
        )
        let server = Task { [log, name] in
            do {
                try await application.runService()
            } catch {
                log("The Lambda Runtime API of the function '\(name)' stopped: \(error)")
            }
            portContinuation.finish()
        }
        defer { server.cancel() }
        var port: Int?
        for await bound in ports { port = bound }
        guard let port, port > 0 else { return }
        var failures = 0
        while !stopped.load(ordering: .sequentiallyConsistent), !Task.isCancelled {
            let how = await runProcess(slot: slot, port: port)
            let served = dispatcher.processEnded(slot: slot, how: how)
            if stopped.load(ordering: .sequentiallyConsistent) { break }
            log("The function '\(name)' exited (\(how)); starting it again.")
            if served {
                failures = 0
            } else {
                failures += 1
                let pause = min(5000, 250 << min(failures - 1, 5))
                do {
                    try await Task.sleep(for: .milliseconds(pause))
                } catch {
                    break
                }
            }
        }
        // The process is gone, but connections it opened just before may still wait in the
        // listener's backlog; SwiftNIO traps ("Deinited NIOAsyncWriter without calling
        // finish()") when it accepts one while the server shuts down. The server is left a
        // moment to accept and close them first, whether or not this task was cancelled.
        await Task.detached { try? await Task.sleep(for: .milliseconds(250)) }.value
    }

    /// Runs the process of `slot` until it ends; returns how it ended, in Lambda's words.
    private func runProcess(slot: Int, port: Int) async -> String {
        var variables = environment
        variables["AWS_LAMBDA_RUNTIME_API"] = "127.0.0.1:\(port)"
        let assignments = variables.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }
        let configuration = Configuration(
            executable: .path("/usr/bin/env"),
            arguments: Arguments(assignments + arguments),
            workingDirectory: function.workingDirectory.map { FilePath($0.path(percentEncoded: false)) }
        )
        // Without a record of invocations the process writes to the server's standard error.
        // With one, it writes into a pipe the server reads line by line: each line goes to the
        // server's standard error, and to the invocation the process holds.
        var output = FileDescriptor.standardError
        var writer: PipeEnd?
        if let invocations {
            guard let (reading, writing) = Self.makePipe() else {
                log("The function '\(name)' could not start: no pipe for its output (errno \(errno)).")
                return "the runtime could not start"
            }
            let dispatcher = dispatcher
            let pipe = OutputPipe(reading)
            outputs.set(slot, pipe)
            Thread.detachNewThread {
                pipe.forwardLines { lines in
                    if let id = dispatcher.lastHanded(slot: slot) { invocations.log(requestID: id, lines: lines) }
                }
            }
            output = FileDescriptor(rawValue: writing)
            writer = PipeEnd(writing)
        }
        let closeWriter = writer
        do {
            let result = try await Subprocess.run(
                configuration,
                input: .none,
                output: .fileDescriptor(output, closeAfterSpawningProcess: false),
                error: .fileDescriptor(output, closeAfterSpawningProcess: false)
            ) { execution in
                // The process has its copy: the reader sees the end once the process is gone.
                closeWriter?.close()
                let process = execution.processIdentifier.value
                processes.set(slot, process)
                if stopped.load(ordering: .sequentiallyConsistent) { kill(process, SIGKILL) }
            }
            processes.set(slot, nil)
            switch result.terminationStatus {
            case .exited(let code): return "exit status \(code)"
            case .signaled(let signal): return signal == SIGKILL ? "signal: killed" : "signal: \(signal)"
            }
        } catch {
            processes.set(slot, nil)
            closeWriter?.close()
            log("The function '\(name)' could not start (`\(arguments.joined(separator: " "))`): \(error)")
            return "the runtime could not start"
        }
    }

    // MARK: - Output

    /// A pipe whose ends are closed on exec: the process receives only the copies it is given.
    private static func makePipe() -> (reading: Int32, writing: Int32)? {
        var ends: [Int32] = [0, 0]
        guard pipe(&ends) == 0 else { return nil }
        for end in ends { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }
        return (ends[0], ends[1])
    }

    // MARK: - Runtime API

    private static let logger = LogLevels.logger("functions", otherwise: .warning)

    private static let requestId = HTTPField.Name("Lambda-Runtime-Aws-Request-Id")!
    private static let deadline = HTTPField.Name("Lambda-Runtime-Deadline-Ms")!
    private static let functionArn = HTTPField.Name("Lambda-Runtime-Invoked-Function-Arn")!
    private static let traceId = HTTPField.Name("Lambda-Runtime-Trace-Id")!

    private func router(slot: Int) -> Router<BasicRequestContext> {
        let router = Router()
        let (dispatcher, name, log, outputs) = (dispatcher, name, log, outputs)
        let arn = "arn:aws:lambda:\(environment["AWS_REGION"] ?? "us-east-1"):000000000000:function:\(name)"
        router.get("2018-06-01/runtime/invocation/next") { _, _ -> Response in
            // What the process wrote for its last invocation is read before it is handed the next,
            // so that each line goes to the invocation it was written during (with a record of
            // invocations only: without one there is no pipe).
            await outputs.pipe(of: slot)?.drained()
            guard let invocation = await dispatcher.next(slot: slot) else {
                return Self.json(.gone, ["errorMessage": "The server is stopping.", "errorType": "Shutdown"])
            }
            let trace =
                "Root=1-\(String(invocation.deadline / 1000, radix: 16))-"
                + invocation.id.replacingOccurrences(of: "-", with: "").prefix(24) + ";Sampled=0"
            return Response(
                status: .ok,
                headers: [
                    .contentType: "application/json",
                    Self.requestId: invocation.id,
                    Self.deadline: String(invocation.deadline),
                    Self.functionArn: arn,
                    Self.traceId: trace,
                ],
                body: ResponseBody(byteBuffer: ByteBuffer(bytes: invocation.event))
            )
        }
        router.post("2018-06-01/runtime/invocation/:id/response") { request, context -> Response in
            let id = context.parameters.get("id") ?? ""
            let body = try await request.body.collect(upTo: 6 << 20)
            guard dispatcher.complete(slot: slot, id: id, with: .success(Data(buffer: body))) else {
                return Self.unknownInvocation(id)
            }
            return Self.json(.accepted, ["status": "OK"])
        }
        router.post("2018-06-01/runtime/invocation/:id/error") { request, context -> Response in
            let id = context.parameters.get("id") ?? ""
            let body = try await request.body.collect(upTo: 6 << 20)
            let error = (try? JSON(parsing: Data(buffer: body)))?.objectValue ?? [:]
            let errorType = error["errorType"]?.stringValue ?? request.headers[Self.errorTypeHeader] ?? "Unhandled"
            let errorMessage = error["errorMessage"]?.stringValue ?? "Unhandled error"
            log("The function '\(name)' failed invocation \(id): \(errorType): \(errorMessage)")
            let failure = FunctionFailure(
                kind: .handled(errorType: errorType, errorMessage: errorMessage),
                detail: "The function '\(name)' answered \(errorType): \(errorMessage)"
            )
            guard dispatcher.complete(slot: slot, id: id, with: .failure(failure)) else {
                return Self.unknownInvocation(id)
            }
            return Self.json(.accepted, ["status": "OK"])
        }
        router.post("2018-06-01/runtime/init/error") { request, _ -> Response in
            let body = try await request.body.collect(upTo: 1 << 20)
            log("The function '\(name)' failed to start: \(String(buffer: body))")
            return Self.json(.accepted, ["status": "OK"])
        }
        return router
    }

    private static let errorTypeHeader = HTTPField.Name("Lambda-Runtime-Function-Error-Type")!

    private static func unknownInvocation(_ id: String) -> Response {
        json(
            .badRequest,
            ["errorMessage": .string("Invalid request ID: \(id)"), "errorType": "InvalidRequestID"]
        )
    }

    private static func json(_ status: HTTPResponse.Status, _ body: JSONObject) -> Response {
        Response(
            status: status,
            headers: [.contentType: "application/json"],
            body: ResponseBody(byteBuffer: ByteBuffer(string: JSON.object(body).text))
        )
    }
}

/// Closes a file descriptor (`close` is the runtime's own method in its scope).
private func closeDescriptor(_ descriptor: Int32) {
    #if canImport(Glibc)
        _ = Glibc.close(descriptor)
    #else
        _ = Darwin.close(descriptor)
    #endif
}

/// The output of each slot's current process.
private final class OutputTable: Sendable {
    private let pipes = Mutex<[Int: OutputPipe]>([:])

    func set(_ slot: Int, _ pipe: OutputPipe) {
        pipes.withLock { $0[slot] = pipe }
    }

    func pipe(of slot: Int) -> OutputPipe? {
        pipes.withLock { $0[slot] }
    }
}

/// The reading end of a process's output: a thread reads it line by line (``forwardLines(_:)``),
/// and ``drained()`` waits until what the process wrote so far has been read.
private final class OutputPipe: Sendable {
    private struct State {
        /// Whether the reader is reading and handing out lines.
        var busy = false
        var closed = false
    }

    private let descriptor: Int32
    private let state = Mutex(State())

    init(_ descriptor: Int32) {
        self.descriptor = descriptor
    }

    /// Reads until the end (the reads block: run it on a thread of its own), copies what it
    /// reads to the server's standard error, hands each complete line to `lines`, and closes the
    /// descriptor at the end.
    func forwardLines(_ lines: ([String]) -> Void) {
        var buffer = [UInt8](repeating: 0, count: 16 * 1024)
        var partial: [UInt8] = []
        while true {
            var ready = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
            if poll(&ready, 1, -1) < 0 {
                if errno == EINTR { continue }
                break
            }
            state.withLock { $0.busy = true }
            let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            if count < 0, errno == EINTR {
                state.withLock { $0.busy = false }
                continue
            }
            guard count > 0 else { break }
            buffer.withUnsafeBytes { _ = write(STDERR_FILENO, $0.baseAddress, count) }
            partial += buffer[..<count]
            if let last = partial.lastIndex(of: UInt8(ascii: "\n")) {
                lines(LocalFunctions.lines(Array(partial[...last])))
                partial.removeSubrange(...last)
            }
            state.withLock { $0.busy = false }
        }
        if !partial.isEmpty { lines(LocalFunctions.lines(partial)) }
        state.withLock { state in
            state.busy = false
            state.closed = true
            closeDescriptor(descriptor)
        }
    }

    /// Waits until nothing written is left unread and the reader is idle, for up to 200
    /// milliseconds: a process asking for its next invocation has written all it will for the
    /// last one.
    func drained() async {
        for _ in 0..<200 {
            let done = state.withLock { state in
                if state.closed { return true }
                if state.busy { return false }
                var ready = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
                return poll(&ready, 1, 0) == 0
            }
            if done { return }
            do {
                try await Task.sleep(for: .milliseconds(1))
            } catch {
                return
            }
        }
    }
}

/// A descriptor closed once, whichever path closes it first.
private final class PipeEnd: Sendable {
    private let descriptor: Mutex<Int32?>

    init(_ descriptor: Int32) {
        self.descriptor = Mutex(descriptor)
    }

    func close() {
        let open = descriptor.withLock { value in
            defer { value = nil }
            return value
        }
        if let open { closeDescriptor(open) }
    }
}

/// The process each slot of a runtime runs, so that a timeout or the server's closing can kill
/// it.
private final class ProcessTable: Sendable {
    private let processes = Mutex<[Int: pid_t]>([:])

    func set(_ slot: Int, _ process: pid_t?) {
        processes.withLock { $0[slot] = process }
    }

    func kill(slot: Int) {
        if let process = processes.withLock({ $0[slot] }) { _ = Self.signal(process) }
    }

    func killAll() {
        for process in processes.withLock({ Array($0.values) }) { _ = Self.signal(process) }
    }

    private static func signal(_ process: pid_t) -> Int32 {
        #if canImport(Glibc)
            Glibc.kill(process, SIGKILL)
        #else
            Darwin.kill(process, SIGKILL)
        #endif
    }
}
