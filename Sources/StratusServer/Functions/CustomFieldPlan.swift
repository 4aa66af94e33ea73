import Foundation
import StratusCodegen

/// How each hand-written query and mutation, and each field of an object type that `@function`
/// or `stratus.json`'s `resolvers` resolves, is answered: by its `@function`s, by the data
/// source `resolvers` gives it, or, for a root field with neither, by `null`, as AppSync answers
/// a field without a resolver.
///
/// A field of an object type (`Post.summary`) with neither is no custom field: it reads the
/// parent's value, as the model's own resolvers give it.
struct CustomFieldPlan: Sendable {
    enum Source: Sendable, Hashable {
        /// `@function`s, run in order, each seeing the previous result (`prev`): names with
        /// `${env}` replaced.
        case pipeline([String])
        /// A Direct Lambda resolver.
        case direct(String)
        /// A Direct Lambda resolver that batches (`BatchInvoke`): the parents of one list are sent
        /// in one invocation, up to `size` at a time, as an array of events.
        case batch(String, size: Int)
        /// A NONE data source: the arguments are the value.
        case none
        /// An `@http` field: the request its directive describes.
        case http(HTTPDirective)
        /// An HTTP data source `resolvers` configures: a `POST` of the context object to this URL.
        case httpDataSource(URL)
        /// No resolver: `null`.
        case unresolved
    }

    /// The source of each field, by `Type.field`.
    var sources: [String: Source] = [:]
    /// What `serve` tells at start-up about fields that answer `null`.
    var notices: [String] = []

    /// The plan of `schema`'s hand-written operations under `configuration`.
    ///
    /// - Throws: ``ServerError`` when `resolvers` names a field that is neither a hand-written
    ///   query or mutation nor a field of an object type that no relation resolves, or a function
    ///   that `functions` does not configure; when an HTTP data source's URL is not an `http` or
    ///   `https` URL; when `httpOrigins` maps an origin no `@http` field calls, or to no origin.
    init(schema: AnnotatedSchema, configuration: ServerConfiguration) throws(ServerError) {
        let roots = schema.rootTypes
        let operations = schema.operations.filter { $0.kind != .subscription }
        let fieldNames = operations.map { "\(roots.name(of: $0.kind)).\($0.name)" }
        let objectFields = Self.objectFields(of: schema)
        for (key, resolver) in configuration.resolvers.sorted(by: { $0.key < $1.key }) {
            guard fieldNames.contains(key) || objectFields[key] != nil else {
                let known =
                    fieldNames.isEmpty
                    ? "The schema has no hand-written query or mutation."
                    : "Its hand-written queries and mutations are: \(fieldNames.joined(separator: ", "))."
                throw ServerError.invalidResolvers(
                    "resolvers names '\(key)', which is neither a hand-written query or mutation of the schema nor "
                        + "a field of one of its types that no relation resolves. Name fields as Type.field "
                        + "(Query.weather, Post.summary). \(known)"
                )
            }
            if case .http(let url) = resolver {
                try Self.checkHTTPURL(url, "resolvers.\(key).http")
            }
            if let name = resolver.functionName, configuration.functions[name] == nil {
                throw ServerError.invalidResolvers(
                    "resolvers.\(key) names the function '\(name)', which functions does not configure. "
                        + #"Add "functions": {""# + name + #"": {"command": ["python3", "handler.py"]}}."#
                )
            }
        }
        var unresolved: [String] = []
        for (key, field) in objectFields.sorted(by: { $0.key < $1.key }) {
            if let configured = configuration.resolvers[key] {
                sources[key] = Self.source(of: configured)
            } else if let resolver = field.resolver {
                plan(resolver, key: key, configuration: configuration)
            }
        }
        for (operation, key) in zip(operations, fieldNames) {
            if let configured = configuration.resolvers[key] {
                sources[key] = Self.source(of: configured)
                continue
            }
            guard let resolver = operation.resolver else {
                sources[key] = .unresolved
                unresolved.append(key)
                continue
            }
            plan(resolver, key: key, configuration: configuration)
        }
        try checkHTTPOrigins(schema: schema, configuration: configuration)
        if !unresolved.isEmpty {
            let example = unresolved[0]
            notices.append(
                "No resolver for \(unresolved.joined(separator: ", ")): \(unresolved.count == 1 ? "it answers" : "they answer") "
                    + "null, as in AppSync. Attach one in stratus.json: "
                    + #""resolvers": {""# + example + #"": {"function": "name-dev"}} with "functions": {"name-dev": "#
                    + #"{"command": ["python3", "handler.py"]}}, or {"dataSource": "NONE"} for a mutation that "#
                    + "returns its arguments."
            )
        }
    }

    /// The fields of the schema's models and other object types that a resolver may answer, by
    /// `Type.field`: those no relation resolves.
    static func objectFields(of schema: AnnotatedSchema) -> [String: Field] {
        var fields: [String: Field] = [:]
        for model in schema.models {
            for field in model.fields where field.relation == nil && !field.isImplicit {
                fields["\(model.name).\(field.name)"] = field
            }
        }
        for nonModel in schema.nonModels {
            for field in nonModel.fields {
                fields["\(nonModel.name).\(field.name)"] = field
            }
        }
        return fields
    }

    private static func source(of configured: ConfiguredResolver) -> Source {
        switch configured {
        case .function(let name): .direct(name)
        case .batchFunction(let name, let size): .batch(name, size: size)
        case .none: Source.none
        case .http(let url): .httpDataSource(url)
        }
    }

    /// Plans the field `key` that `resolver`, its directive, resolves.
    private mutating func plan(_ resolver: FieldResolver, key: String, configuration: ServerConfiguration) {
        switch resolver {
        case .functions(let invocations):
            let names = invocations.map { Self.functionName($0.name, environment: configuration.environmentName) }
            let missing = names.filter { configuration.functions[$0] == nil }
            if missing.isEmpty {
                sources[key] = .pipeline(names)
            } else {
                sources[key] = .unresolved
                notices.append(
                    "\(key) calls the function\(missing.count == 1 ? "" : "s") "
                        + missing.map { "'\($0)'" }.joined(separator: ", ")
                        + ", which stratus.json does not configure, so it answers null. Add "
                        + #""functions": {""# + missing[0]
                        + #"": {"runtime": ["python3", "-m", "awslambdaric", "index.handler"]}} (or "command")."#
                )
            }
        case .http(let request):
            sources[key] = .http(HTTPDirective(request, configuration: configuration))
        }
    }

    /// `name` with `${env}` replaced by `environment`, or, without one, with `-${env}` removed,
    /// as Amplify does.
    static func functionName(_ name: String, environment: String?) -> String {
        if let environment { return name.replacingOccurrences(of: "${env}", with: environment) }
        return name.replacingOccurrences(of: "-${env}", with: "").replacingOccurrences(of: "${env}", with: "")
    }

    /// The origins of the schema's `@http` fields, as written, in order.
    static func httpOrigins(of schema: AnnotatedSchema) -> [String] {
        let resolvers =
            schema.operations.compactMap(\.resolver)
            + objectFields(of: schema).sorted { $0.key < $1.key }.compactMap(\.value.resolver)
        var origins: [String] = []
        for case .http(let request) in resolvers where !origins.contains(request.origin) {
            origins.append(request.origin)
        }
        return origins
    }

    /// Each `httpOrigins` entry maps an origin an `@http` field calls to an `http` or `https`
    /// URL.
    private func checkHTTPOrigins(
        schema: AnnotatedSchema,
        configuration: ServerConfiguration
    ) throws(ServerError) {
        guard !configuration.httpOrigins.isEmpty else { return }
        let origins = Self.httpOrigins(of: schema)
        let resolved = origins.map {
            CustomFieldPlan.functionName($0, environment: configuration.environmentName)
                .replacingOccurrences(of: "${aws_region}", with: configuration.region)
        }
        for (origin, target) in configuration.httpOrigins.sorted(by: { $0.key < $1.key }) {
            guard origins.contains(origin) || resolved.contains(origin) else {
                throw ServerError.invalidResolvers(
                    "httpOrigins maps '\(origin)', which no @http field calls. "
                        + (origins.isEmpty
                            ? "The schema has no @http field; remove httpOrigins."
                            : "Map one of the origins the schema's @http URLs start with: "
                                + origins.map { "'\($0)'" }.joined(separator: ", ") + ".")
                )
            }
            try Self.checkHTTPURL(target, "httpOrigins['\(origin)']")
        }
    }

    /// `url` is an absolute `http` or `https` URL with a host and no query or fragment.
    static func checkHTTPURL(_ url: URL, _ key: String) throws(ServerError) {
        let components = URLComponents(url: url, resolvingAgainstBaseURL: false)
        guard let components, ["http", "https"].contains(components.scheme ?? ""), components.host?.isEmpty == false,
            components.query == nil, components.fragment == nil
        else {
            throw ServerError.invalidResolvers(
                "\(key) is '\(url.absoluteString)', which is not an http:// or https:// URL with a host and no query. "
                    + "Give one such as http://127.0.0.1:8080."
            )
        }
    }
}
