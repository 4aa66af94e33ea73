import Foundation

/// The functions of a server, by name, ready to invoke: commands run per invocation, and
/// runtimes whose processes start with the server and stop when it closes.
final class LocalFunctions: Sendable {
    private enum Runner: Sendable {
        case command(ExternalCommand, name: String)
        case runtime(FunctionRuntime)
    }

    private let runners: [String: Runner]
    private let log: @Sendable (String) -> Void
    /// The last invocations, for the console's Functions page; `nil` to keep none.
    let invocations: FunctionInvocations?

    /// The names of the functions configured, in order.
    var names: [String] { runners.keys.sorted() }

    /// Prepares the functions of `configuration`; runtimes start their processes at once.
    init(_ configuration: ServerConfiguration, log: @escaping @Sendable (String) -> Void) {
        self.log = log
        let invocations = configuration.functionInvocations
        self.invocations = invocations
        var runners: [String: Runner] = [:]
        for (name, function) in configuration.functions {
            var environment = [
                "AWS_LAMBDA_FUNCTION_NAME": name,
                "AWS_LAMBDA_FUNCTION_VERSION": "$LATEST",
                "AWS_LAMBDA_FUNCTION_MEMORY_SIZE": "128",
                "AWS_LAMBDA_LOG_GROUP_NAME": "/aws/lambda/\(name)",
                "AWS_LAMBDA_LOG_STREAM_NAME": "local",
                "AWS_REGION": "us-east-1",
                "AWS_DEFAULT_REGION": "us-east-1",
                "REGION": "us-east-1",
            ]
            if let directory = function.workingDirectory {
                environment["LAMBDA_TASK_ROOT"] = directory.path(percentEncoded: false)
            }
            if let env = configuration.environmentName { environment["ENV"] = env }
            for (key, value) in function.environment { environment[key] = value }
            switch function.handler {
            case .command(let arguments):
                let assignments = environment.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }
                runners[name] = .command(
                    ExternalCommand(
                        arguments: assignments + arguments,
                        workingDirectory: function.workingDirectory,
                        timeout: function.timeout
                    ),
                    name: name
                )
            case .runtime(let arguments, let concurrency):
                let runtime = FunctionRuntime(
                    name: name,
                    function: function,
                    arguments: arguments,
                    environment: environment,
                    invocations: invocations,
                    log: log
                )
                runtime.start(concurrency: concurrency)
                runners[name] = .runtime(runtime)
            }
        }
        self.runners = runners
    }

    /// Whether a function of that name is configured.
    func contains(_ name: String) -> Bool { runners[name] != nil }

    /// Invokes the function `name` with `event` and returns its result; the invocation is kept
    /// in ``invocations``, if any, with its outcome and the lines the function wrote.
    ///
    /// - Throws: ``FunctionFailure``, logged here with its detail.
    func invoke(_ name: String, event: JSON) async throws(FunctionFailure) -> JSON {
        let requestID = UUID().uuidString.lowercased()
        invocations?.begin(requestID: requestID, function: name, event: event, time: Date())
        let clock = ContinuousClock()
        let start = clock.now
        do {
            let result: JSON
            switch runners[name] {
            case .command(let command, let name)?:
                let (answer, errorOutput) = try await Self.run(command, name: name, event: event)
                invocations?.log(requestID: requestID, lines: Self.lines(errorOutput))
                result = answer
            case .runtime(let runtime)?:
                result = try await runtime.invoke(event, requestID: requestID)
            case nil:
                preconditionFailure("The function '\(name)' was checked to be configured.")
            }
            invocations?.finish(requestID: requestID, outcome: .result(result), duration: clock.now - start)
            return result
        } catch {
            var errorType: String?
            if case .handled(let type, _) = error.kind { errorType = type }
            if case .command = runners[name] { invocations?.log(requestID: requestID, lines: Self.lines(error.output)) }
            invocations?.finish(
                requestID: requestID,
                outcome: .error(errorType: errorType, message: error.message, detail: error.detail),
                duration: clock.now - start
            )
            log(error.detail)
            throw error
        }
    }

    /// The lines of what a process wrote, without the last line's newline.
    static func lines(_ bytes: [UInt8]) -> [String] {
        guard !bytes.isEmpty else { return [] }
        var text = String(decoding: bytes, as: UTF8.self)
        if text.hasSuffix("\n") { text.removeLast() }
        return text.split(separator: "\n", omittingEmptySubsequences: false).map {
            $0.hasSuffix("\r") ? String($0.dropLast()) : String($0)
        }
    }

    /// Stops every runtime's processes.
    func close() {
        for case .runtime(let runtime) in runners.values { runtime.close() }
    }

    /// Runs a command function: the event on its standard input, the result on its standard
    /// output. A command that exits with a non-zero status after writing
    /// `{"errorMessage": …, "errorType": …}` reports that error.
    /// Answers the result and what the command wrote on its standard error.
    private static func run(
        _ command: ExternalCommand,
        name: String,
        event: JSON
    ) async throws(FunctionFailure) -> (JSON, [UInt8]) {
        let output: Data
        let errorOutput: [UInt8]
        do {
            (output, errorOutput) = try await command.runKeepingErrors(input: event.data)
        } catch {
            if error.timedOut {
                throw FunctionFailure(
                    kind: .timedOut(command.timeout),
                    detail: "The function '\(name)' \(error.problem)",
                    output: error.errorOutput
                )
            }
            if let reported = try? JSON(parsing: Data(error.output)),
                let message = reported["errorMessage"]?.stringValue
            {
                let errorType = reported["errorType"]?.stringValue ?? "Unhandled"
                throw FunctionFailure(
                    kind: .handled(errorType: errorType, errorMessage: message),
                    detail: "The function '\(name)' answered \(errorType): \(message)",
                    output: error.errorOutput
                )
            }
            throw FunctionFailure(
                kind: .exited(error.termination ?? "the runtime could not start"),
                detail: "The function '\(name)' \(error.problem)",
                output: error.errorOutput
            )
        }
        do {
            return (try JSON(parsing: output), errorOutput)
        } catch {
            throw FunctionFailure(
                kind: .invalidResult,
                detail: "The function '\(name)' answered a response that is not JSON: \(error)",
                output: errorOutput
            )
        }
    }
}
