import Foundation

/// A function the local backend runs for `@function` fields and Lambda resolvers, as AppSync
/// invokes a Lambda function.
///
/// A function is either a command started for each invocation, the event on its standard input
/// and the result on its standard output, or a long-running runtime: processes the server
/// starts with `AWS_LAMBDA_RUNTIME_API` set to a Lambda Runtime API it hosts, which they poll
/// for invocations as every Lambda runtime client does (`awslambdaric`, the Node and Swift
/// runtimes), so that a project's function runs unchanged.
///
/// ```swift
/// var configuration = ServerConfiguration(environmentName: "dev")
/// configuration.functions["echo-dev"] = LocalFunction(
///     handler: .runtime(["python3", "-m", "awslambdaric", "app.handler"], concurrency: 2),
///     workingDirectory: URL(filePath: "amplify/backend/function/echo/src")
/// )
/// ```
public struct LocalFunction: Sendable {
    /// How the function runs.
    public enum Handler: Sendable, Hashable {
        /// A command started for each invocation: the event is its standard input, its standard
        /// output the result. The program is looked up in `PATH`.
        case command([String])
        /// `concurrency` long-running processes, each polling the Lambda Runtime API and serving
        /// one invocation at a time; one that dies is started again.
        case runtime([String], concurrency: Int)
    }

    public var handler: Handler
    /// The directory the function runs in (`LAMBDA_TASK_ROOT`); `nil` for the server's.
    public var workingDirectory: URL?
    /// How long an invocation may take; AppSync's Lambda functions time out by their own
    /// setting, which Amplify makes 25 seconds.
    public var timeout: Duration
    /// Variables added to the function's environment, besides the Lambda ones the server sets.
    public var environment: [String: String]

    /// Creates a function.
    public init(
        handler: Handler,
        workingDirectory: URL? = nil,
        timeout: Duration = .seconds(25),
        environment: [String: String] = [:]
    ) {
        switch handler {
        case .command(let arguments), .runtime(let arguments, _):
            precondition(!arguments.isEmpty, "A function needs at least a program name.")
        }
        if case .runtime(_, let concurrency) = handler {
            precondition(concurrency >= 1, "A function runtime needs a concurrency of at least 1.")
        }
        self.handler = handler
        self.workingDirectory = workingDirectory
        self.timeout = timeout
        self.environment = environment
    }
}

/// The data source of a field without a directive, as `stratus.json`'s `resolvers` names it.
public enum ConfiguredResolver: Sendable, Hashable {
    /// A Direct Lambda resolver: the function, by its name in
    /// ``ServerConfiguration/functions``, receives AppSync's context object.
    case function(String)
    /// A Direct Lambda resolver that batches, as AppSync's `maxBatchSize` makes it: on a field of
    /// an object type, the parents of one list are sent in one invocation (`BatchInvoke`), up to
    /// `batchSize` at a time, as an array of context objects; the function answers an array of
    /// results in the same order, each a value or `{"data": …, "errorMessage": …, "errorType": …}`.
    case batchFunction(String, batchSize: Int)
    /// A NONE data source (a local resolver): the field's value is its arguments, the pattern of
    /// mutations that only exist to publish to subscriptions.
    case none
    /// An HTTP data source: the field's request is a `POST` of AppSync's context object (as a
    /// Direct Lambda resolver receives it) to this URL, and the response's JSON body its value,
    /// as for an `@http` field.
    case http(URL)
}

extension ConfiguredResolver {
    /// The function the resolver invokes, if any.
    var functionName: String? {
        switch self {
        case .function(let name), .batchFunction(let name, _): name
        case .none, .http: nil
        }
    }
}
