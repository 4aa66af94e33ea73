/// An annotated GraphQL schema after parsing, validation and relation resolution.
///
/// This is what every generator (Swift models, statements, the local backend) reads: models with
/// their keys, indexes, relations and auth rules, enums and non-model types. Many-to-many
/// relations have already been expanded into their join models, and implicit foreign keys have
/// names.
///
/// The hand-written parts of the schema are kept as written, ready for the backend to build their
/// resolvers: the fields of the root types (``operations``), with their arguments, return types and
/// directives; the `input`, `interface`, `union` and `scalar` types; and the root type names of a
/// `schema { }` block. `extend type` definitions are already merged into the types they extend,
/// and `input AMPLIFY { globalAuthRule: … }` into the rules of the models without `@auth`.
public struct AnnotatedSchema: Sendable, Hashable {
    /// `@model` types in declaration order, join models of `@manyToMany` after them.
    public var models: [ModelType]
    /// Enums in declaration order.
    public var enums: [EnumType]
    /// Non-model object types in declaration order: values embedded in models, and the results
    /// of hand-written operations.
    public var nonModels: [NonModelType]
    /// The names of the query, mutation and subscription types: `Query`, `Mutation` and
    /// `Subscription` unless a `schema { }` block names others. The generated operations join
    /// the hand-written ones in these types.
    public var rootTypes = RootTypeNames()
    /// The hand-written fields of the root types, in declaration order (`type Query { … }`,
    /// `extend type Mutation { … }`): the operations the backend runs with functions, HTTP
    /// requests or, for subscriptions, mutations it listens to.
    public var operations: [CustomOperation] = []
    /// `input` types in declaration order: the arguments of hand-written operations and fields.
    public var inputs: [InputType] = []
    /// `interface` types in declaration order.
    public var interfaces: [InterfaceType] = []
    /// `union` types in declaration order.
    public var unions: [UnionType] = []
    /// Custom `scalar` types in declaration order; their values pass through as JSON.
    public var scalars: [CustomScalar] = []
    /// The rule of `input AMPLIFY { globalAuthRule: AuthRule = { allow: public } }`, the
    /// sandbox rule of Amplify's v2 transformer. It is already in the ``ModelType/authRules`` of
    /// every model without an `@auth` of its own (``ModelType/usesGlobalAuthRule``).
    public var globalAuthRule: AuthRuleDefinition? = nil
    /// What the schema does that works but deserves attention, in source order: fields that
    /// hold a model without a relation directive, for example.
    public var warnings: [SchemaWarning] = []

    /// The model named `name`.
    public func model(named name: String) -> ModelType? {
        models.first { $0.name == name }
    }

    /// The enum named `name`.
    public func enumType(named name: String) -> EnumType? {
        enums.first { $0.name == name }
    }

    /// The non-model type named `name`.
    public func nonModel(named name: String) -> NonModelType? {
        nonModels.first { $0.name == name }
    }

    /// The input type named `name`.
    public func inputType(named name: String) -> InputType? {
        inputs.first { $0.name == name }
    }

    /// The interface named `name`.
    public func interface(named name: String) -> InterfaceType? {
        interfaces.first { $0.name == name }
    }

    /// The union named `name`.
    public func union(named name: String) -> UnionType? {
        unions.first { $0.name == name }
    }

    /// The hand-written operations of one kind, in declaration order.
    public func operations(_ kind: CustomOperation.Kind) -> [CustomOperation] {
        operations.filter { $0.kind == kind }
    }

    /// The object types (models and non-model types) that are `type`: the type itself for an
    /// object type, the implementations of an interface, the members of a union; in declaration
    /// order, models first.
    public func possibleTypes(of type: String) -> [String] {
        if let union = union(named: type) { return union.members }
        guard interface(named: type) != nil else { return [type] }
        return models.filter { $0.interfaces.contains(type) }.map(\.name)
            + nonModels.filter { $0.interfaces.contains(type) }.map(\.name)
    }
}

/// A problem in the schema that does not stop it from being served, with where it is.
public struct SchemaWarning: Sendable, Hashable, CustomStringConvertible {
    /// The type the warning is about.
    public var typeName: String
    /// The field, if the warning is about one.
    public var fieldName: String?
    public var position: SourcePosition
    /// What happens and what to do about it.
    public var message: String

    /// `line:column: Type.field: message`.
    public var description: String {
        let subject = [typeName, fieldName].compactMap { $0 }.joined(separator: ".")
        return "\(position): \(subject): \(message)"
    }
}

/// A position in the schema's source text, 1-based.
public struct SourcePosition: Sendable, Hashable, CustomStringConvertible {
    public var line: Int
    public var column: Int

    public init(line: Int, column: Int) {
        self.line = line
        self.column = column
    }

    public var description: String { "\(line):\(column)" }
}

/// A `@model` type.
public struct ModelType: Sendable, Hashable {
    public var name: String
    /// Every field: declared ones, implicit foreign keys, then timestamps.
    public var fields: [Field]
    /// Partition key first, then sort keys (`@primaryKey`, or `id`).
    public var primaryKey: [String]
    /// Secondary indexes from `@index` (and legacy named `@key`).
    public var indexes: [Index]
    /// Model-level `@auth` rules.
    public var authRules: [AuthRuleDefinition]
    /// The `@aws_*` authorization directives on the type.
    public var awsAuth: [AWSAuthDirective] = []
    /// The operations the API exposes for this model (`@model(queries:mutations:subscriptions:)`).
    public var operations: ModelOperations
    /// `createdAt`/`updatedAt` field names, `nil` when timestamps are off.
    public var timestamps: Timestamps?
    /// `true` for join models generated from `@manyToMany`.
    public var isJoinModel: Bool
    public var position: SourcePosition
    /// The interfaces the type implements (`type Post implements Node @model`), in order.
    public var interfaces: [String] = []
    /// `true` when ``authRules`` are the schema's ``AnnotatedSchema/globalAuthRule``, the model
    /// having no `@auth` of its own.
    public var usesGlobalAuthRule = false
    /// `true` for `@searchable` models: the API adds ``ModelOperations/search``, a query backed
    /// by a search index of the model's items.
    public var isSearchable = false
    /// v1's `@versioned`: every write checks and bumps a version field, or `nil`.
    public var versioning: Versioning? = nil

    /// The field named `name`.
    public func field(named name: String) -> Field? {
        fields.first { $0.name == name }
    }

    /// The plural used by `list<Plural>` and `sync<Plural>`.
    public var pluralName: String { Naming.plural(name) }
}

/// The version condition of v1's `@versioned(versionField:versionInput:)`, as the v1 transformer
/// applies it.
///
/// Creating an item sets ``versionField`` to 1 (the create input has no such field). Updating
/// and deleting take ``versionInput`` (an `Int!` of the update and delete inputs), succeed only
/// when it equals the stored version, and an update stores the version plus one. The version
/// field is an `Int!` of the model, added when the schema does not declare it.
public struct Versioning: Sendable, Hashable {
    /// The model's version field: `version` unless `versionField:` names another.
    public var versionField: String
    /// The input field with the version a write expects: `expectedVersion` unless
    /// `versionInput:` names another.
    public var versionInput: String
}

/// A secondary index.
public struct Index: Sendable, Hashable {
    public var name: String
    /// Partition key first, then sort keys.
    public var fields: [String]
    /// The query field `@index(queryField:)` asks for, if any.
    public var queryField: String?
}

/// The `createdAt`/`updatedAt` field names of a model.
public struct Timestamps: Sendable, Hashable {
    public var createdAt: String?
    public var updatedAt: String?
}

/// Which generated operations a model exposes, and their names.
public struct ModelOperations: Sendable, Hashable {
    public var get: String?
    public var list: String?
    public var sync: String?
    public var create: String?
    public var update: String?
    public var delete: String?
    public var onCreate: String?
    public var onUpdate: String?
    public var onDelete: String?
    /// For `@searchable` models, `search<Plural>` or the name `@searchable(queries: { search: })`
    /// gives.
    public var search: String? = nil

    /// Every enabled operation's field name, queries first.
    public var fieldNames: [String] {
        [get, list, sync, search, create, update, delete, onCreate, onUpdate, onDelete].compactMap { $0 }
    }
}

/// A field of a model or non-model type.
public struct Field: Sendable, Hashable {
    public var name: String
    public var type: FieldType
    /// The relation this field stands for, if any.
    public var relation: Relation?
    /// `@default(value:)`, as written.
    public var defaultValue: String?
    /// Field-level `@auth` rules.
    public var authRules: [AuthRuleDefinition]
    /// The `@aws_*` authorization directives on the field.
    public var awsAuth: [AWSAuthDirective] = []
    /// `true` for fields the backend sets (timestamps).
    public var isReadOnly: Bool
    /// `true` for fields the schema does not declare (implicit foreign keys, timestamps).
    public var isImplicit: Bool
    public var position: SourcePosition
    /// The field's arguments: fields resolved by a function or an HTTP request may take some.
    public var arguments: [InputValue] = []
    /// How the backend computes the field instead of reading it from the stored item
    /// (`@function`, `@http`), or `nil` for a stored field.
    public var resolver: FieldResolver? = nil
}

/// A field's GraphQL type.
public struct FieldType: Sendable, Hashable, CustomStringConvertible {
    /// The named type at the bottom: a scalar, an enum, a non-model or a model.
    public var name: String
    /// What ``name`` refers to.
    public var kind: Kind
    public var isRequired: Bool
    public var isList: Bool
    /// For lists: `true` when the elements are non-null (`[String!]`).
    public var isElementRequired: Bool

    public enum Kind: Sendable, Hashable {
        case scalar(Scalar)
        case enumeration
        case nonModel
        case model
        /// An `interface`: only in the results of hand-written operations and their types.
        case interface
        /// A `union`: only in the results of hand-written operations and their types.
        case union
        /// An `input` type: only in arguments and in other inputs.
        case input
        /// A custom `scalar`: its values pass through as JSON.
        case customScalar
        /// The connection type the API generates for a model, `Model<M>Connection` (a page of
        /// `items` and a `nextToken`), as the result of a hand-written query.
        case connection
    }

    /// For a connection type, the model whose items it holds.
    public var connectedModel: String? {
        guard kind == .connection, name.hasPrefix("Model"), name.hasSuffix("Connection") else { return nil }
        return String(name.dropFirst(5).dropLast(10))
    }

    /// `true` for scalars, enums and custom scalars: types selected without a selection set.
    public var isLeaf: Bool {
        switch kind {
        case .scalar, .enumeration, .customScalar: true
        case .nonModel, .model, .interface, .union, .input, .connection: false
        }
    }

    /// The type as GraphQL writes it.
    public var description: String {
        var text = name
        if isList { text = "[\(text)\(isElementRequired ? "!" : "")]" }
        return isRequired ? text + "!" : text
    }
}

/// The scalars a field may have: GraphQL's and AWS AppSync's.
public enum Scalar: String, Sendable, Hashable, CaseIterable {
    case id = "ID"
    case string = "String"
    case int = "Int"
    case float = "Float"
    case boolean = "Boolean"
    case awsDate = "AWSDate"
    case awsTime = "AWSTime"
    case awsDateTime = "AWSDateTime"
    case awsTimestamp = "AWSTimestamp"
    case awsEmail = "AWSEmail"
    case awsJSON = "AWSJSON"
    case awsPhone = "AWSPhone"
    case awsURL = "AWSURL"
    case awsIPAddress = "AWSIPAddress"
}

/// A relation between two models.
public struct Relation: Sendable, Hashable {
    public enum Kind: String, Sendable, Hashable {
        case hasMany
        case hasOne
        case belongsTo
    }

    public var kind: Kind
    /// The other model.
    public var relatedModel: String
    /// Foreign-key fields held by this model (hasOne, belongsTo), in key order.
    public var targetNames: [String]
    /// The fields of the related model this relation pairs with: for hasMany and hasOne the
    /// child's belongsTo field if it has one, else its foreign-key fields.
    public var associatedFields: [String]
    /// For hasMany: the child's foreign-key fields, in key order.
    public var childKeyFields: [String]
    /// For hasMany: the child's index that serves the relation, if any.
    public var indexName: String?
}

/// An enum type.
public struct EnumType: Sendable, Hashable {
    public var name: String
    public var values: [String]
    public var position: SourcePosition
}

/// A non-model object type: a value stored inside models, or the result of a hand-written
/// operation (which may hold models, interfaces and unions, and have fields computed by
/// functions).
public struct NonModelType: Sendable, Hashable {
    public var name: String
    public var fields: [Field]
    /// The `@aws_*` authorization directives on the type.
    public var awsAuth: [AWSAuthDirective] = []
    public var position: SourcePosition
    /// The interfaces the type implements, in order.
    public var interfaces: [String] = []
}

/// One rule of `@auth(rules:)`.
public struct AuthRuleDefinition: Sendable, Hashable {
    public enum Strategy: String, Sendable, Hashable, CaseIterable {
        case owner
        case groups
        case `private`
        case `public`
        case custom
    }

    public enum Provider: String, Sendable, Hashable, CaseIterable {
        case apiKey
        case iam
        case oidc
        case userPools
        case function
        case identityPool
    }

    public enum Operation: String, Sendable, Hashable, CaseIterable {
        case create
        case update
        case delete
        case read
        case get
        case list
        case sync
        case listen
        case search
    }

    public var allow: Strategy
    public var provider: Provider
    public var ownerField: String?
    public var identityClaim: String?
    public var groupClaim: String?
    public var groups: [String]
    public var groupsField: String?
    public var operations: [Operation]
}

/// An AppSync authorization directive: `@aws_api_key`, `@aws_iam`, `@aws_oidc`, `@aws_lambda`,
/// `@aws_cognito_user_pools(cognito_groups:)` (or `@aws_auth(cognito_groups:)`).
///
/// On a type it lets the mode reach every field of the type; on a field it replaces the type's
/// directives for that field. A type or field without any is open to the API's default mode.
public struct AWSAuthDirective: Sendable, Hashable {
    public enum Mode: String, Sendable, Hashable, CaseIterable {
        case apiKey = "aws_api_key"
        case iam = "aws_iam"
        case oidc = "aws_oidc"
        case lambda = "aws_lambda"
        case userPools = "aws_cognito_user_pools"
    }

    public var mode: Mode
    /// For user pools: the groups one of which the caller must be in; empty for any user.
    public var cognitoGroups: [String]

    public init(mode: Mode, cognitoGroups: [String] = []) {
        self.mode = mode
        self.cognitoGroups = cognitoGroups
    }

    /// The directive `directive` names, if it is one of AppSync's authorization directives.
    static func parse(name: String, cognitoGroups: [String]?) -> AWSAuthDirective? {
        if name == "aws_auth" { return AWSAuthDirective(mode: .userPools, cognitoGroups: cognitoGroups ?? []) }
        guard let mode = Mode(rawValue: name) else { return nil }
        return AWSAuthDirective(mode: mode, cognitoGroups: mode == .userPools ? cognitoGroups ?? [] : [])
    }
}
