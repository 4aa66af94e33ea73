import AWSWire

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
    /// Where in the schema the type or field is declared.
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
    /// The line, counted from 1.
    public var line: Int
    /// The column, counted from 1 in characters of the line.
    public var column: Int

    /// The position at `line` and `column`.
    public init(line: Int, column: Int) {
        self.line = line
        self.column = column
    }

    /// `line:column`, as messages print it after the file name.
    public var description: String { "\(line):\(column)" }
}

/// A `@model` type.
public struct ModelType: Sendable, Hashable {
    /// The type's name, which is also the model's name in generated code and in the API.
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
    /// Where the type is declared; for a join model, the `@manyToMany` field that made it.
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
    /// The index's name, which hasMany relations and key-condition queries refer to.
    public var name: String
    /// Partition key first, then sort keys.
    public var fields: [String]
    /// The query field `@index(queryField:)` asks for, if any.
    public var queryField: String?
}

/// The `createdAt`/`updatedAt` field names of a model.
public struct Timestamps: Sendable, Hashable {
    /// The field the backend sets when an item is created, or `nil` when the model has none.
    public var createdAt: String?
    /// The field the backend sets on every write, or `nil` when the model has none.
    public var updatedAt: String?
}

/// Which generated operations a model exposes, and their names.
///
/// Each is the name of the field in the API's root type, or `nil` when
/// `@model(queries:mutations:subscriptions:)` turns the operation off.
public struct ModelOperations: Sendable, Hashable {
    /// The query that reads one item by its key: `get<Model>`.
    public var get: String?
    /// The query that reads a page of items: `list<Plural>`.
    public var list: String?
    /// DataStore's delta query: `sync<Plural>`.
    public var sync: String?
    /// The mutation that creates an item: `create<Model>`.
    public var create: String?
    /// The mutation that updates an item: `update<Model>`.
    public var update: String?
    /// The mutation that deletes an item: `delete<Model>`.
    public var delete: String?
    /// The subscription to created items: `onCreate<Model>`.
    public var onCreate: String?
    /// The subscription to updated items: `onUpdate<Model>`.
    public var onUpdate: String?
    /// The subscription to deleted items: `onDelete<Model>`.
    public var onDelete: String?
    /// For `@searchable` models, `search<Plural>` or the name `@searchable(queries: { search: })`
    /// gives.
    public var search: String? = nil

    /// Every enabled operation's field name, queries first.
    public var fieldNames: [String] {
        [get, list, sync, search, create, update, delete, onCreate, onUpdate, onDelete].compactMap { $0 }
    }
}

extension ModelOperations {
    /// The default operations of a model: `getPost`, `listPosts`, `syncPosts`, `createPost`,
    /// `updatePost`, `deletePost` and the three subscriptions, with `Naming.plural(_:)`.
    public static func defaults(for model: String) -> ModelOperations {
        let plural = Naming.plural(model)
        return ModelOperations(
            get: "get\(model)",
            list: "list\(plural)",
            sync: "sync\(plural)",
            create: "create\(model)",
            update: "update\(model)",
            delete: "delete\(model)",
            onCreate: "onCreate\(model)",
            onUpdate: "onUpdate\(model)",
            onDelete: "onDelete\(model)"
        )
    }
}

/// A field of a model or non-model type.
public struct Field: Sendable, Hashable {
    /// The field's name, as the API and the generated code spell it.
    public var name: String
    /// The field's GraphQL type.
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
    /// Where the field is declared; for an implicit field, where what implies it is.
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
    /// `true` when the value may not be null (`String!`, `[String]!`).
    public var isRequired: Bool
    /// `true` for a list of the named type (`[String]`).
    public var isList: Bool
    /// For lists: `true` when the elements are non-null (`[String!]`).
    public var isElementRequired: Bool

    /// What kind of type a field's named type is, which decides how it is stored, selected and
    /// generated.
    public enum Kind: Sendable, Hashable {
        /// One of GraphQL's or AppSync's scalars.
        case scalar(Scalar)
        /// An `enum` of the schema.
        case enumeration
        /// A non-model object type: stored inside the item, or the result of an operation.
        case nonModel
        /// A `@model` type: a relation, or a field the schema holds without one.
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
///
/// The raw value is the name the schema writes. AppSync checks the format of its own scalars on
/// input, and so does the local backend.
public enum Scalar: String, Sendable, Hashable, CaseIterable {
    /// `ID`: a unique identifier, a string on the wire.
    case id = "ID"
    /// `String`.
    case string = "String"
    /// `Int`: an integer.
    case int = "Int"
    /// `Float`: a double-precision number.
    case float = "Float"
    /// `Boolean`.
    case boolean = "Boolean"
    /// `AWSDate`: an extended ISO 8601 date, `YYYY-MM-DD`, with an optional offset.
    case awsDate = "AWSDate"
    /// `AWSTime`: an extended ISO 8601 time, `hh:mm[:ss[.f]]`, with an optional offset.
    case awsTime = "AWSTime"
    /// `AWSDateTime`: an extended ISO 8601 date and time with its offset.
    case awsDateTime = "AWSDateTime"
    /// `AWSTimestamp`: seconds since the Unix epoch, an integer.
    case awsTimestamp = "AWSTimestamp"
    /// `AWSEmail`: an email address.
    case awsEmail = "AWSEmail"
    /// `AWSJSON`: a JSON document, sent as a string.
    case awsJSON = "AWSJSON"
    /// `AWSPhone`: a phone number.
    case awsPhone = "AWSPhone"
    /// `AWSURL`: a URL with a scheme.
    case awsURL = "AWSURL"
    /// `AWSIPAddress`: an IPv4 or IPv6 address, with an optional prefix length.
    case awsIPAddress = "AWSIPAddress"
}

/// A relation between two models.
public struct Relation: Sendable, Hashable {
    /// The relation's directive: which side holds the foreign key, and how many items the field
    /// holds.
    public enum Kind: String, Sendable, Hashable {
        /// `@hasMany`: a list of children, whose foreign keys point at this model.
        case hasMany
        /// `@hasOne`: one child, whose key this model holds.
        case hasOne
        /// `@belongsTo`: the parent, whose key this model holds.
        case belongsTo
    }

    /// The relation's directive.
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
    /// The enum's name.
    public var name: String
    /// The values, in declaration order, as the schema writes them.
    public var values: [String]
    /// Where the enum is declared.
    public var position: SourcePosition
}

/// A non-model object type: a value stored inside models, or the result of a hand-written
/// operation (which may hold models, interfaces and unions, and have fields computed by
/// functions).
public struct NonModelType: Sendable, Hashable {
    /// The type's name.
    public var name: String
    /// The fields, in declaration order.
    public var fields: [Field]
    /// The `@aws_*` authorization directives on the type.
    public var awsAuth: [AWSAuthDirective] = []
    /// Where the type is declared.
    public var position: SourcePosition
    /// The interfaces the type implements, in order.
    public var interfaces: [String] = []
}

/// One rule of `@auth(rules:)`.
///
/// A caller may run an operation on a model (or read a field) when one of its rules allows that
/// operation for the caller's authorization mode; the defaults a rule leaves out are filled in as
/// Amplify's transformer fills them.
public struct AuthRuleDefinition: Sendable, Hashable {
    /// Whom a rule allows: its `allow:`.
    public enum Strategy: String, Sendable, Hashable, CaseIterable {
        /// The user whose identity the item's ``AuthRuleDefinition/ownerField`` holds.
        case owner
        /// Members of ``AuthRuleDefinition/groups``, or of the groups the item's
        /// ``AuthRuleDefinition/groupsField`` holds.
        case groups
        /// Any signed-in caller of the provider.
        case `private`
        /// Any caller of the provider, signed in or not.
        case `public`
        /// Whoever the API's Lambda authorizer allows.
        case custom
    }

    /// The authorization mode a rule applies to: its `provider:`.
    public enum Provider: String, Sendable, Hashable, CaseIterable {
        /// `API_KEY`; the default of `public` rules.
        case apiKey
        /// `AWS_IAM`: signed requests.
        case iam
        /// `OPENID_CONNECT`: tokens of an OpenID Connect provider.
        case oidc
        /// `AMAZON_COGNITO_USER_POOLS`; the default of `owner`, `groups` and `private` rules.
        case userPools
        /// `AWS_LAMBDA`; the default of `custom` rules.
        case function
        /// `AWS_IAM` with an identity pool's credentials, as Amplify's v2 transformer names it.
        case identityPool
    }

    /// What a rule allows: one of its `operations:`.
    public enum Operation: String, Sendable, Hashable, CaseIterable {
        /// The create mutation.
        case create
        /// The update mutation.
        case update
        /// The delete mutation.
        case delete
        /// Every read: ``get``, ``list``, ``sync``, ``listen`` and ``search``.
        case read
        /// The get query.
        case get
        /// The list query and the index queries.
        case list
        /// The sync query.
        case sync
        /// The subscriptions.
        case listen
        /// The search query of `@searchable` models.
        case search
    }

    /// Whom the rule allows.
    public var allow: Strategy
    /// The authorization mode the rule applies to.
    public var provider: Provider
    /// For `owner` rules, the field holding the owner's identity: `owner` unless the rule
    /// names another.
    public var ownerField: String?
    /// For `owner` rules, the token claim compared with the owner field: `sub::username`
    /// (both, joined with `::`) unless the rule names another.
    public var identityClaim: String?
    /// For `groups` rules, the token claim listing the caller's groups: `cognito:groups`
    /// unless the rule names another.
    public var groupClaim: String?
    /// For static `groups` rules, the groups allowed.
    public var groups: [String]
    /// For dynamic `groups` rules, the field holding the groups allowed for each item.
    public var groupsField: String?
    /// The operations the rule allows: create, update, delete and read unless it names others.
    public var operations: [Operation]
}

/// An AppSync authorization directive: `@aws_api_key`, `@aws_iam`, `@aws_oidc`, `@aws_lambda`,
/// `@aws_cognito_user_pools(cognito_groups:)` (or `@aws_auth(cognito_groups:)`).
///
/// On a type it lets the mode reach every field of the type; on a field it replaces the type's
/// directives for that field. A type or field without any is open to the API's default mode.
public struct AWSAuthDirective: Sendable, Hashable {
    /// The authorization mode a directive admits; the raw value is the directive's name.
    public enum Mode: String, Sendable, Hashable, CaseIterable {
        /// `@aws_api_key`: `API_KEY`.
        case apiKey = "aws_api_key"
        /// `@aws_iam`: `AWS_IAM`.
        case iam = "aws_iam"
        /// `@aws_oidc`: `OPENID_CONNECT`.
        case oidc = "aws_oidc"
        /// `@aws_lambda`: `AWS_LAMBDA`.
        case lambda = "aws_lambda"
        /// `@aws_cognito_user_pools`: `AMAZON_COGNITO_USER_POOLS`.
        case userPools = "aws_cognito_user_pools"
    }

    /// The mode the directive admits.
    public var mode: Mode
    /// For user pools: the groups one of which the caller must be in; empty for any user.
    public var cognitoGroups: [String]

    /// The directive admitting `mode`, for user pools only the members of `cognitoGroups`.
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
