import Foundation

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
        // Output that is not a JSON object with an action is the handler's failure, named below.
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

    private func run(input: Data) async throws(ConflictHandlerError) -> Data {
        do {
            return try await ExternalCommand(arguments: arguments, workingDirectory: workingDirectory, timeout: timeout)
                .run(input: input)
        } catch {
            throw failure(error.problem)
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
