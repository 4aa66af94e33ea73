/// Why `stratus codegen types` cannot generate an `API.swift`: the schema or a statement is not
/// valid, or uses something the generator does not support.
///
/// Each problem names its file, line and column, and what to do:
///
/// ```
/// graphql/queries.graphql:3:5: Cannot query field "titel" on type "Post". Did you mean "title"?
/// ```
public struct TypesError: Error, Sendable, CustomStringConvertible {
    /// One problem, at a place in a file.
    public struct Problem: Sendable, Hashable, CustomStringConvertible {
        /// The file the problem is in.
        public var file: String
        /// The line (1-based), when the problem has a place.
        public var line: Int?
        /// The column (1-based), when the problem has a place.
        public var column: Int?
        /// What is wrong and what to do.
        public var message: String

        /// Creates a problem.
        public init(file: String, line: Int? = nil, column: Int? = nil, message: String) {
            self.file = file
            self.line = line
            self.column = column
            self.message = message
        }

        /// `file:line:column: message`, or `file: message` without a place.
        public var description: String {
            guard let line, let column else { return "\(file): \(message)" }
            return "\(file):\(line):\(column): \(message)"
        }
    }

    /// Every problem found, in the order found.
    public let problems: [Problem]

    /// An error made of `problems`.
    public init(_ problems: [Problem]) {
        self.problems = problems
    }

    /// An error with one problem.
    init(file: String, line: Int? = nil, column: Int? = nil, _ message: String) {
        self.init([Problem(file: file, line: line, column: column, message: message)])
    }

    /// One line per problem.
    public var description: String {
        problems.map(\.description).joined(separator: "\n")
    }
}
