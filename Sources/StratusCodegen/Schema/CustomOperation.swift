/// A hand-written field of a root type: a query, mutation or subscription the schema declares
/// itself rather than one `@model` generates.
///
/// ```graphql
/// type Query {
///   echo(msg: String): String @function(name: "echo-${env}") @aws_api_key
/// }
/// type Subscription {
///   onCreateMessage(roomId: ID!): Message @aws_subscribe(mutations: ["createMessage"])
/// }
/// ```
///
/// The backend answers it with its ``resolver``; a subscription with ``subscribedMutations``
/// receives the results of those mutations (filtered by the subscription's arguments, which
/// AppSync compares with the same-named fields of each result). Who may call it is decided by
/// ``awsAuth``, as for any field, and by ``authRules`` when `@auth` is on the field.
public struct CustomOperation: Sendable, Hashable {
    /// The root type the operation belongs to.
    public enum Kind: String, Sendable, Hashable, CaseIterable {
        /// A field of the query type.
        case query
        /// A field of the mutation type.
        case mutation
        /// A field of the subscription type.
        case subscription
    }

    /// The root type the operation belongs to.
    public var kind: Kind
    /// The field name: `echo`, `onCreateMessage`.
    public var name: String
    /// The arguments in declaration order.
    public var arguments: [InputValue]
    /// The result type.
    public var type: FieldType
    /// `@function` (one or more, run in order) or `@http`; `nil` when the schema names none,
    /// as for subscriptions, and for fields Amplify users answer with resolvers of their own.
    public var resolver: FieldResolver?
    /// `@aws_subscribe(mutations:)`: the mutations whose results the subscription receives,
    /// generated or hand-written, in order; `nil` without the directive.
    public var subscribedMutations: [String]?
    /// The `@aws_*` authorization directives on the field.
    public var awsAuth: [AWSAuthDirective]
    /// `@auth` rules on the field: static rules only (public, private, `groups: [...]`), which
    /// Amplify checks before the resolver runs.
    public var authRules: [AuthRuleDefinition]
    /// Where the field is declared.
    public var position: SourcePosition
}

/// The names of the root operation types.
///
/// A `schema { query: RootQuery }` block renames them; the generated operations join the
/// hand-written ones in whichever types these name.
public struct RootTypeNames: Sendable, Hashable {
    /// The query type's name: `Query` unless the schema block names another.
    public var query = "Query"
    /// The mutation type's name: `Mutation` unless the schema block names another.
    public var mutation = "Mutation"
    /// The subscription type's name: `Subscription` unless the schema block names another.
    public var subscription = "Subscription"

    /// GraphQL's default names: `Query`, `Mutation` and `Subscription`.
    public init() {}

    /// The name of the root type of `kind`.
    public func name(of kind: CustomOperation.Kind) -> String {
        switch kind {
        case .query: query
        case .mutation: mutation
        case .subscription: subscription
        }
    }

    /// `true` when the names are `Query`, `Mutation` and `Subscription`.
    public var areDefault: Bool { self == RootTypeNames() }
}

/// How the backend computes a field's value: the directive that names its data source.
public enum FieldResolver: Sendable, Hashable {
    /// `@function(name:)`, once or several times: the functions run in order as a pipeline, each
    /// seeing the previous one's result (`prev`), the last one's result being the field's value.
    case functions([FunctionInvocation])
    /// `@http(url:method:headers:)`: the field's value is the response body.
    case http(HTTPRequest)
}

/// One `@function(name:region:accountId:invocationType:)`.
public struct FunctionInvocation: Sendable, Hashable {
    /// How the function is called.
    public enum InvocationType: String, Sendable, Hashable {
        /// Waits for the function's result.
        case requestResponse = "RequestResponse"
        /// Starts the function and answers at once (the result type is then
        /// `EventInvocationResponse { success: Boolean! }`).
        case event = "Event"
    }

    /// The function's name as the schema writes it: `${env}` is kept, for the backend to
    /// replace with its environment's name (or to drop with the dash before it when there is
    /// none, as Amplify does).
    public var name: String
    /// The region of a function in another region, if given.
    public var region: String?
    /// The account of a function in another account, if given.
    public var accountId: String?
    /// How the function is called: ``InvocationType/requestResponse`` unless the schema says
    /// otherwise.
    public var invocationType: InvocationType
}

/// One `@http(url:method:headers:)`.
public struct HTTPRequest: Sendable, Hashable {
    /// The methods `@http` takes.
    public enum Method: String, Sendable, Hashable, CaseIterable {
        /// `GET`, the default.
        case get = "GET"
        /// `POST`.
        case post = "POST"
        /// `PUT`.
        case put = "PUT"
        /// `DELETE`.
        case delete = "DELETE"
        /// `PATCH`.
        case patch = "PATCH"
    }

    /// A header sent with the request.
    public struct Header: Sendable, Hashable {
        /// The header's name, as written.
        public var key: String
        /// The header's value, as written.
        public var value: String

        /// A header `key: value`.
        public init(key: String, value: String) {
            self.key = key
            self.value = value
        }
    }

    /// The URL as written: `${env}`, `${aws_region}` and `:argument` path parameters are kept for
    /// the backend to fill in.
    public var url: String
    /// The method: `GET` unless the schema says otherwise.
    public var method: Method
    /// The headers sent with every request, in declaration order.
    public var headers: [Header]
    /// The arguments declared non-null (path parameters aside): a request with a body must
    /// carry each in `query` or `body`, since the rewritten inputs make them all optional.
    public var requiredArguments: [String] = []

    /// The origin the HTTP data source is configured with: the scheme and what follows it up to
    /// the first `/` (`https://api.example.com`, `http://${env}api.example.com:8080`).
    public var origin: String {
        let scheme = url.hasPrefix("https://") ? "https://" : "http://"
        let rest = url.dropFirst(scheme.count)
        return scheme + rest.prefix { $0 != "/" }
    }

    /// The resource path: the URL from the first `/` after the origin (its query string
    /// included), or `/` when there is none. `:name` parameters and `${…}` are kept.
    public var path: String {
        let origin = origin
        let rest = url.dropFirst(origin.count)
        return rest.isEmpty ? "/" : String(rest)
    }

    /// The `:name` parameters of ``path``, in order: each becomes a field of the field's
    /// `params` argument.
    public var pathParameters: [String] {
        var names: [String] = []
        var remaining = Substring(path)
        while let colon = remaining.firstIndex(of: ":") {
            let name = remaining[remaining.index(after: colon)...].prefix {
                $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "_")
            }
            if !name.isEmpty { names.append(String(name)) }
            remaining = remaining[remaining.index(after: colon)...].dropFirst(name.count)
        }
        return names
    }
}

extension HTTPRequest.Method {
    /// Whether requests of the method carry a body: `POST`, `PUT` and `PATCH`.
    public var hasBody: Bool { self == .post || self == .put || self == .patch }
}

/// An argument of a field, or a field of an input type.
public struct InputValue: Sendable, Hashable {
    /// The argument's or input field's name.
    public var name: String
    /// A scalar, an enum, an input type or a custom scalar.
    public var type: FieldType
    /// The default value as GraphQL writes it (`"hello"`, `10`, `[A, B]`), if any.
    public var defaultValue: String?
    /// Where the argument or input field is declared.
    public var position: SourcePosition
}
