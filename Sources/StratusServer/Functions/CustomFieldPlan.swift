import Foundation
import StratusCodegen

/// How each hand-written query and mutation is answered: by its `@function`s, by the data source
/// `stratus.json`'s `resolvers` gives it, or, with neither, by `null`, as AppSync answers a
/// field without a resolver.
struct CustomFieldPlan: Sendable {
    enum Source: Sendable, Hashable {
        /// `@function`s, run in order, each seeing the previous result (`prev`): names with
        /// `${env}` replaced.
        case pipeline([String])
        /// A Direct Lambda resolver.
        case direct(String)
        /// A NONE data source: the arguments are the value.
        case none
        /// No resolver: `null`.
        case unresolved
    }

    /// The source of each field, by `Type.field`.
    var sources: [String: Source] = [:]
    /// What `serve` tells at start-up about fields that answer `null`.
    var notices: [String] = []

    /// The plan of `schema`'s hand-written operations under `configuration`.
    ///
    /// - Throws: ``ServerError`` when `resolvers` names a field that is not a hand-written query
    ///   or mutation, or a function that `functions` does not configure.
    init(schema: AnnotatedSchema, configuration: ServerConfiguration) throws(ServerError) {
        let roots = schema.rootTypes
        let operations = schema.operations.filter { $0.kind != .subscription }
        let fieldNames = operations.map { "\(roots.name(of: $0.kind)).\($0.name)" }
        for (key, resolver) in configuration.resolvers.sorted(by: { $0.key < $1.key }) {
            guard fieldNames.contains(key) else {
                let known =
                    fieldNames.isEmpty ? "The schema has none." : "They are: \(fieldNames.joined(separator: ", "))."
                throw ServerError.invalidResolvers(
                    "resolvers names '\(key)', which is not a hand-written query or mutation of the schema. "
                        + "Name fields as Type.field (Query.weather). \(known)"
                )
            }
            if case .function(let name) = resolver, configuration.functions[name] == nil {
                throw ServerError.invalidResolvers(
                    "resolvers.\(key) names the function '\(name)', which functions does not configure. "
                        + #"Add "functions": {""# + name + #"": {"command": ["python3", "handler.py"]}}."#
                )
            }
        }
        var unresolved: [String] = []
        for (operation, key) in zip(operations, fieldNames) {
            if let configured = configuration.resolvers[key] {
                switch configured {
                case .function(let name): sources[key] = .direct(name)
                case .none: sources[key] = Source.none
                }
                continue
            }
            switch operation.resolver {
            case .functions(let invocations)?:
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
            case .http?:
                sources[key] = .unresolved
                notices.append("\(key) has @http, which the local server does not call yet, so it answers null.")
            case nil:
                sources[key] = .unresolved
                unresolved.append(key)
            }
        }
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

    /// `name` with `${env}` replaced by `environment`, or, without one, with `-${env}` removed,
    /// as Amplify does.
    static func functionName(_ name: String, environment: String?) -> String {
        if let environment { return name.replacingOccurrences(of: "${env}", with: environment) }
        return name.replacingOccurrences(of: "-${env}", with: "").replacingOccurrences(of: "${env}", with: "")
    }
}
