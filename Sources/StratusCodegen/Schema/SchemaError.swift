/// An annotated schema that cannot be turned into models and an API.
///
/// Every problem names the type, the field, the line and the column, and says what to do:
///
/// ```
/// schema.graphql:14:3: Comment.post: @belongsTo(fields:) names 'postID', which Comment does not have. Add 'postID: ID' to Comment or name an existing field.
/// ```
public struct SchemaError: Error, Sendable, CustomStringConvertible {
    /// Each problem found, in source order.
    public let problems: [Problem]
    /// The file the schema came from, for messages.
    public let fileName: String

    /// One problem in the schema.
    public struct Problem: Sendable, Hashable, CustomStringConvertible {
        /// What kind of problem this is.
        ///
        /// A struct of named values rather than an enum, so that codes can be added without
        /// breaking the tools that switch on them.
        public struct Code: Sendable, Hashable, CustomStringConvertible {
            let rawValue: String
            /// The code's name, such as `missingField`.
            public var description: String { rawValue }

            /// The text is not valid GraphQL.
            public static let syntax = Code(rawValue: "syntax")
            /// Two types share a name, or a generated type (a join model, say) would take an
            /// existing one's.
            public static let duplicateType = Code(rawValue: "duplicateType")
            /// A type declares a field twice.
            public static let duplicateField = Code(rawValue: "duplicateField")
            /// A type or field takes a name the API or the generated code uses.
            public static let reservedName = Code(rawValue: "reservedName")
            /// A field, argument or `extend` names a type the schema does not declare.
            public static let unknownType = Code(rawValue: "unknownType")
            /// A directive that neither Amplify's transformers nor AppSync define.
            public static let unknownDirective = Code(rawValue: "unknownDirective")
            /// A directive or setting has an argument it does not take.
            public static let unknownArgument = Code(rawValue: "unknownArgument")
            /// An argument has a value its directive does not accept.
            public static let invalidArgument = Code(rawValue: "invalidArgument")
            /// A directive is on a type where it belongs on a field, or the other way round, or on
            /// a type that is not a model.
            public static let misplacedDirective = Code(rawValue: "misplacedDirective")
            /// A relation directive is on a field whose type is not a model.
            public static let relationToNonModel = Code(rawValue: "relationToNonModel")
            /// A directive names a field the type does not have.
            public static let missingField = Code(rawValue: "missingField")
            /// A relation cannot be resolved: the wrong cardinality, keys that do not match the
            /// related model's, no field on the other side.
            public static let invalidRelation = Code(rawValue: "invalidRelation")
            /// A primary key or index is declared twice or names fields that cannot be keys.
            public static let invalidKey = Code(rawValue: "invalidKey")
            /// Non-model types hold one another by value in a cycle, which no struct can hold.
            public static let cycle = Code(rawValue: "cycle")
            /// Something Amplify accepts that this implementation does not serve or generate.
            public static let unsupported = Code(rawValue: "unsupported")
        }

        /// What kind of problem this is, for tools that react to a kind rather than a message.
        public let code: Code
        /// The type the problem is in.
        public let typeName: String?
        /// The field the problem is on, if any.
        public let fieldName: String?
        /// Where in the schema the problem is, when it has a place.
        public let position: SourcePosition?
        /// What is wrong and what to do.
        public let message: String

        /// `Type.field: message`, or `Type: message`.
        public var description: String {
            let subject = [typeName, fieldName].compactMap { $0 }.joined(separator: ".")
            return subject.isEmpty ? message : "\(subject): \(message)"
        }
    }

    /// One line per problem: `file:line:column: Type.field: message`.
    public var description: String {
        problems.map { problem in
            let place = problem.position.map { "\(fileName):\($0.line):\($0.column)" } ?? fileName
            return "\(place): \(problem)"
        }.joined(separator: "\n")
    }
}
