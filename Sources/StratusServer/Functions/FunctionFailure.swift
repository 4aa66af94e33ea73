/// Why a function invocation gave no result, and the GraphQL error AppSync makes of it.
///
/// Every failure becomes a field error of type `Lambda:Unhandled`, as AppSync reports a Lambda
/// function that failed: the message is the handler's `errorMessage`, or Lambda's own words for
/// a function that timed out or exited (`Task timed out after 10.00 seconds`, `Runtime exited
/// with error: exit status 1`). What the server knows besides (the command, its standard error)
/// goes to the server's log only.
struct FunctionFailure: Error, Sendable, CustomStringConvertible {
    enum Kind: Sendable, Hashable {
        /// The handler reported an error (`/invocation/{id}/error`, or a command's answer).
        case handled(errorType: String, errorMessage: String)
        /// The invocation ran past the function's timeout; the process was stopped.
        case timedOut(Duration)
        /// The process ended before answering: `exit status 1`, `signal: killed`.
        case exited(String)
        /// The result is not JSON.
        case invalidResult
    }

    var kind: Kind
    /// What the server log says besides: the function and what went wrong.
    var detail: String
    /// What a command function wrote on its standard error before it failed; empty otherwise.
    var output: [UInt8] = []

    var description: String { detail }

    /// The message the client sees.
    var message: String {
        switch kind {
        case .handled(_, let errorMessage): errorMessage
        case .timedOut(let timeout): "Task timed out after \(Self.seconds(timeout)) seconds"
        case .exited(let how): "Runtime exited with error: \(how)"
        case .invalidResult: "The function's response is not valid JSON."
        }
    }

    /// The field error.
    var resolverError: ResolverError {
        ResolverError(errorType: .lambdaUnhandled, message: message)
    }

    /// `10.00`: seconds with two decimals, as Lambda writes its timeout.
    static func seconds(_ duration: Duration) -> String {
        let hundredths = duration.components.seconds * 100 + duration.components.attoseconds / 10_000_000_000_000_000
        let fraction = hundredths % 100
        return "\(hundredths / 100).\(fraction < 10 ? "0" : "")\(fraction)"
    }
}
