import Foundation
import GraphQL

/// The HTTP request a GraphQL request arrived in, as resolvers that invoke functions pass it
/// on (`request.headers`); empty for a request made in process.
enum IncomingRequest {
    /// The request's headers, names in lower case as AppSync gives them.
    @TaskLocal static var headers: JSONObject = [:]
    /// The address of the client the request came from; `nil` for a request made in process.
    @TaskLocal static var sourceIP: String?
}

/// The events AppSync sends a Lambda function for a field, byte for byte.
///
/// A Direct Lambda resolver (a field `stratus.json`'s `resolvers` gives a function) receives
/// AppSync's context object:
///
/// ```json
/// {"arguments": {"city": "Oslo"}, "identity": null, "source": null,
///  "request": {"headers": {"x-api-key": "da2-…"}, "domainName": null}, "prev": null,
///  "info": {"fieldName": "weather", "parentTypeName": "Query", "variables": {},
///           "selectionSetList": ["summary"], "selectionSetGraphQL": "{\n  summary\n}"},
///  "stash": {}}
/// ```
///
/// An `@function` field receives the payload of the Amplify transformer's request template:
/// `typeName`, `fieldName`, `arguments`, `identity`, `source`, `request` and `prev`, where
/// `prev` is `{"result": …}`, the previous function's result in a pipeline (`{}` for the first).
struct FunctionEvent: Sendable {
    var arguments: JSONObject
    var identity: Identity
    var source: JSON
    var headers: JSONObject
    /// `identity.sourceIp`: the client's address, and those `x-forwarded-for` names before it.
    var sourceIp: [String]
    var parentTypeName: String
    var fieldName: String
    var variables: JSONObject
    var selectionSetList: [String]
    var selectionSetGraphQL: String
    /// The field's alias, or its name: what tells apart two selections of one field.
    var responseKey: String

    /// The event of a field being resolved.
    init(arguments: JSONObject, source: JSON, identity: Identity, info: GraphQLResolveInfo) {
        self.arguments = arguments
        self.identity = identity
        self.source = source
        headers = IncomingRequest.headers
        let forwarded = (headers["x-forwarded-for"]?.stringValue ?? "").split(separator: ",").map {
            $0.trimmingCharacters(in: .whitespaces)
        }
        sourceIp = forwarded.filter { !$0.isEmpty } + [IncomingRequest.sourceIP].compactMap { $0 }
        parentTypeName = info.parentType.name
        fieldName = info.fieldName
        responseKey = info.fieldASTs.first?.alias?.value ?? info.fieldName
        var variables = JSONObject()
        for (name, value) in info.variableValues {
            variables[name] = (value as? Map).flatMap { JSON($0) } ?? .null
        }
        self.variables = variables
        let selections = info.fieldASTs.flatMap { $0.selectionSet?.selections ?? [] }
        selectionSetList = Self.paths(selections, prefix: "", fragments: info.fragments)
        selectionSetGraphQL = info.fieldASTs.first?.selectionSet.map { print(ast: $0) } ?? ""
    }

    /// The context object of a Direct Lambda resolver.
    var direct: JSON {
        [
            "arguments": .object(arguments),
            "identity": Self.identity(identity, sourceIp: sourceIp),
            "source": source,
            "request": request,
            "prev": .null,
            "info": [
                "fieldName": .string(fieldName),
                "parentTypeName": .string(parentTypeName),
                "variables": .object(variables),
                "selectionSetList": .array(selectionSetList.map(JSON.string)),
                "selectionSetGraphQL": .string(selectionSetGraphQL),
            ],
            "stash": [:],
        ]
    }

    /// The payload of an `@function` invocation; `previous` is the result of the function before
    /// it in the field's pipeline, `{}` for the first.
    func amplify(previous: JSON) -> JSON {
        [
            "typeName": .string(parentTypeName),
            "fieldName": .string(fieldName),
            "arguments": .object(arguments),
            "identity": Self.identity(identity, sourceIp: sourceIp),
            "source": source,
            "request": request,
            "prev": ["result": previous],
        ]
    }

    private var request: JSON {
        ["headers": .object(headers), "domainName": .null]
    }

    /// `$ctx.identity` of each authorization mode: `null` for API keys and `NONE`.
    static func identity(_ identity: Identity, sourceIp addresses: [String]) -> JSON {
        let claims = identity.claims
        let sourceIp: JSON = .array(addresses.map(JSON.string))
        switch identity.authorizationMode {
        case .apiKey, .none:
            return .null
        case .amazonCognitoUserPools:
            let groups = claims["cognito:groups"] ?? .null
            return [
                "sub": claims["sub"] ?? .null,
                "issuer": claims["iss"] ?? .null,
                "username": claims["cognito:username"] ?? claims["username"] ?? .null,
                "claims": .object(claims),
                "sourceIp": sourceIp,
                "defaultAuthStrategy": "ALLOW",
                "groups": groups,
            ]
        case .openIDConnect:
            return ["sub": claims["sub"] ?? .null, "issuer": claims["iss"] ?? .null, "claims": .object(claims)]
        case .awsIAM:
            return [
                "accountId": claims["accountId"] ?? .null,
                "cognitoIdentityPoolId": claims["cognitoIdentityPoolId"] ?? .null,
                "cognitoIdentityId": claims["cognitoIdentityId"] ?? .null,
                "sourceIp": sourceIp,
                "username": claims["username"] ?? claims["accessKeyId"] ?? .null,
                "userArn": claims["userArn"] ?? .null,
                "cognitoIdentityAuthType": claims["cognitoIdentityAuthType"] ?? .null,
                "cognitoIdentityAuthProvider": claims["cognitoIdentityAuthProvider"] ?? .null,
            ]
        case .function:
            return ["resolverContext": .object(claims)]
        }
    }

    /// AppSync's `selectionSetList`: each selected field's path, `/` between levels, fragments
    /// spread in place, `__typename` left out.
    private static func paths(
        _ selections: [any Selection],
        prefix: String,
        fragments: [String: FragmentDefinition]
    ) -> [String] {
        var result: [String] = []
        func add(_ path: String) {
            if !result.contains(path) { result.append(path) }
        }
        for selection in selections {
            switch selection {
            case let field as GraphQL.Field:
                guard field.name.value != "__typename" else { continue }
                let path = prefix + field.name.value
                add(path)
                for nested in paths(field.selectionSet?.selections ?? [], prefix: path + "/", fragments: fragments) {
                    add(nested)
                }
            case let inline as InlineFragment:
                for nested in paths(inline.selectionSet.selections, prefix: prefix, fragments: fragments) {
                    add(nested)
                }
            case let spread as FragmentSpread:
                guard let fragment = fragments[spread.name.value] else { continue }
                for nested in paths(fragment.selectionSet.selections, prefix: prefix, fragments: fragments) {
                    add(nested)
                }
            default:
                continue
            }
        }
        return result
    }
}
