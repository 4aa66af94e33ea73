import AWSWire
import Foundation

extension RequestAuthenticator {
    /// A Lambda authorizer's answer that is not AppSync's shape.
    struct LambdaAuthorizerAnswerError: Error, CustomStringConvertible {
        let function: String
        let answer: JSON

        var description: String {
            "The Lambda authorizer '\(function)' answered \(answer.text), which is not "
                + #"{"isAuthorized": true|false, "resolverContext": {…}}: the request is refused."#
        }
    }

    /// The decision of the API's Lambda authorizer on `token`: ``ServerAuthorization/lambdaAuthorizer``,
    /// else the server's function ``ServerAuthorization/lambdaAuthorizerFunction`` given AppSync's
    /// authorizer event for the request `parts`.
    ///
    /// - Throws: the authorizer's failure, or ``LambdaAuthorizerAnswerError`` for an answer
    ///   without a Boolean `isAuthorized`; the caller refuses the request.
    func lambdaDecision(on token: String, _ parts: SignedParts) async throws -> LambdaAuthorization {
        if let authorizer = configuration.lambdaAuthorizer { return try await authorizer(token) }
        guard let function = configuration.lambdaAuthorizerFunction, let current else {
            return LambdaAuthorization(isAuthorized: false)
        }
        let server = current.server
        guard server.functions.contains(function) else {
            server.log(
                "The Lambda authorizer function '\(function)' is not among the server's functions: the request is "
                    + "refused. Configure the function, or name a configured one."
            )
            return LambdaAuthorization(isAuthorized: false)
        }
        let answer = try await server.functions.invoke(function, event: Self.lambdaEvent(token: token, parts))
        guard let isAuthorized = answer["isAuthorized"]?.boolValue else {
            let failure = LambdaAuthorizerAnswerError(function: function, answer: answer)
            server.log(failure.description)
            throw failure
        }
        return LambdaAuthorization(
            isAuthorized: isAuthorized,
            resolverContext: answer["resolverContext"]?.objectValue ?? [:]
        )
    }

    /// AppSync's Lambda authorizer event: the token, the request's GraphQL query, operation
    /// name and variables (from its JSON body, when it has them), and its headers.
    static func lambdaEvent(token: String, _ parts: SignedParts) -> JSON {
        // A body that is not a JSON object leaves the query empty; the API refuses the body itself.
        let request = (try? JSON(parsing: parts.body))?.objectValue ?? [:]
        var headers = JSONObject()
        for field in parts.headers { headers[field.name.lowercased()] = .string(field.value) }
        let context = JSONObject([
            ("apiId", "local"),
            ("accountId", "000000000000"),
            ("requestId", .string(UUID().uuidString.lowercased())),
            ("queryString", request["query"] ?? ""),
            ("operationName", request["operationName"] ?? .null),
            ("variables", request["variables"].flatMap { $0.isNull ? nil : $0 } ?? .object([:])),
        ])
        return .object(
            JSONObject([
                ("authorizationToken", .string(token)), ("requestContext", .object(context)),
                ("requestHeaders", .object(headers)),
            ])
        )
    }
}
