/// An annotated schema that cannot be turned into models and an API.
///
/// Every problem names the type, the field, the line and the column, and says what to do:
///
/// ```
/// schema.graphql:14:3: Comment.post: @belongsTo(fields:) names 'postID', which Comment does not have. Add 'postID: ID!' to Comment or name an existing field.
/// ```
public struct SchemaError: Error, Sendable, CustomStringConvertible {
    /// Each problem found, in source order.
    public let problems: [Problem]
    /// The file the schema came from, for messages.
    public let fileName: String

    /// One problem in the schema.
    public struct Problem: Sendable, Hashable, CustomStringConvertible {
        /// What kind of problem this is.
        public struct Code: Sendable, Hashable, CustomStringConvertible {
            let rawValue: String
            public var description: String { rawValue }

            public static let syntax = Code(rawValue: "syntax")
            public static let duplicateType = Code(rawValue: "duplicateType")
            public static let duplicateField = Code(rawValue: "duplicateField")
            public static let reservedName = Code(rawValue: "reservedName")
            public static let unknownType = Code(rawValue: "unknownType")
            public static let unknownDirective = Code(rawValue: "unknownDirective")
            public static let unknownArgument = Code(rawValue: "unknownArgument")
            public static let invalidArgument = Code(rawValue: "invalidArgument")
            public static let misplacedDirective = Code(rawValue: "misplacedDirective")
            public static let relationToNonModel = Code(rawValue: "relationToNonModel")
            public static let missingField = Code(rawValue: "missingField")
            public static let invalidRelation = Code(rawValue: "invalidRelation")
            public static let invalidKey = Code(rawValue: "invalidKey")
            public static let cycle = Code(rawValue: "cycle")
            public static let unsupported = Code(rawValue: "unsupported")
        }

        public let code: Code
        /// The type the problem is in.
        public let typeName: String?
        /// The field the problem is on, if any.
        public let fieldName: String?
        public let position: SourcePosition?
        /// What is wrong and what to do.
        public let message: String

        /// `Type.field: message`, or `Type: message`.
        public var description: String {
            let subject = [typeName, fieldName].compactMap { $0 }.joined(separator: ".")
            return subject.isEmpty ? message : "\(subject): \(message)"
        }
    }

    public var description: String {
        problems.map { problem in
            let place = problem.position.map { "\(fileName):\($0.line):\($0.column)" } ?? fileName
            return "\(place): \(problem)"
        }.joined(separator: "\n")
    }
}
