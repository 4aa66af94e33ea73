import AWSWire
import Foundation
import HTTPTypes
import Hummingbird

/// `/rest/<api>/<resource path>`: API Gateway's routing, authorization and Lambda proxy
/// integration, with its error bodies.
struct RESTEndpoint: Sendable {
    let apis: [String: RESTAPI]
    /// The GraphQL endpoint's authorizer: the same keys, credentials and token caches.
    let authorizer: RequestAuthenticator
    let limits: ServerLimits
    let clock: @Sendable () -> Date
    let log: @Sendable (String) -> Void

    init(
        apis: [RESTAPI],
        authorizer: RequestAuthenticator,
        limits: ServerLimits,
        clock: @escaping @Sendable () -> Date,
        log: @escaping @Sendable (String) -> Void
    ) {
        self.apis = Dictionary(apis.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
        self.authorizer = authorizer
        self.limits = limits
        self.clock = clock
        self.log = log
    }

    /// API Gateway's answer for a path or method no route serves.
    static let missingToken = RESTResponse(status: 403, message: "Missing Authentication Token")
    static let forbidden = RESTResponse(status: 403, message: "Forbidden")
    static let unauthorized = RESTResponse(status: 401, message: "Unauthorized")
    static let internalError = RESTResponse(status: 502, message: "Internal server error")

    func respond(to request: Request) async -> Response {
        let path = request.uri.path
        let parts = path.split(separator: "/", maxSplits: 2, omittingEmptySubsequences: true)
        guard parts.count >= 2, let api = apis[String(parts[1])] else {
            return Self.missingToken.response(cors: false)
        }
        let resourcePath = parts.count > 2 ? "/" + parts[2] : "/"
        let method = request.method.rawValue
        if method == "OPTIONS", api.cors {
            return preflight(
                api,
                resourcePath: resourcePath,
                requestedHeaders: request.headers[.accessControlRequestHeaders]
            )
        }
        guard
            let (route, parameters) = api.routes.lazy.compactMap({ route in
                route.match(resourcePath).map { (route, $0) }
            })
            .first(where: { $0.0.serves(method) })
        else {
            return Self.missingToken.response(cors: api.cors)
        }
        var request = request
        let body: Data
        do {
            body = Data(buffer: try await request.collectBody(upTo: limits.maxRequestBytes))
        } catch {
            return RESTResponse(status: 413, message: "Request Too Long").response(cors: api.cors)
        }
        let signed = RequestAuthenticator.SignedParts(request: request, body: body)
        let headers = signed.headers
        let identity: JSONObject
        switch await authorize(route, signed) {
        case .success(let value): identity = value
        case .failure(let refusal):
            Self.note(refusal: refusal)
            return refusal.response(cors: api.cors)
        }
        Self.note(route.authorization, identity: identity)
        let event = proxyEvent(
            api: api,
            route: route,
            parameters: parameters,
            request: request,
            resourcePath: resourcePath,
            headers: headers,
            body: body,
            identity: identity
        )
        let answer: JSON
        do {
            answer = try await handle(
                route.handler,
                event: event,
                resourcePath: resourcePath,
                request: request,
                body: body
            )
        } catch {
            log("The handler of \(method) \(path) failed: \(error)")
            return Self.internalError.response(cors: api.cors)
        }
        guard let response = RESTResponse(proxyResponse: answer) else {
            log("The handler of \(method) \(path) answered a malformed proxy response: \(answer.text.prefix(500))")
            return Self.internalError.response(cors: api.cors)
        }
        return response.response(cors: api.cors)
    }

    /// The answer to a CORS preflight. The allowed headers are those the browser asks for
    /// (`Access-Control-Request-Headers`), as API Gateway's CORS with `*` allowed headers answers,
    /// so that custom headers reach the API; without the question, the headers Amplify's clients send.
    private func preflight(_ api: RESTAPI, resourcePath: String, requestedHeaders: String?) -> Response {
        let methods = api.routes.filter { $0.match(resourcePath) != nil }.flatMap(\.methods)
        let allowed =
            methods.isEmpty || methods.contains(.any)
            ? "DELETE,GET,HEAD,OPTIONS,PATCH,POST,PUT"
            : (Set(methods.map(\.rawValue)).union(["OPTIONS"])).sorted().joined(separator: ",")
        var fields = HTTPFields()
        fields[.accessControlAllowOrigin] = "*"
        fields[.accessControlAllowMethods] = allowed
        if let requestedHeaders, !requestedHeaders.trimmingCharacters(in: .whitespaces).isEmpty {
            fields[.accessControlAllowHeaders] = requestedHeaders
        } else {
            fields[.accessControlAllowHeaders] =
                "Content-Type,X-Amz-Date,Authorization,X-Api-Key,X-Amz-Security-Token,X-Amz-User-Agent"
        }
        fields[.contentType] = "application/json"
        return Response(status: .ok, headers: fields, body: ResponseBody(byteBuffer: ByteBuffer(string: "{}")))
    }

    // MARK: - Authorization

    private func authorize(
        _ route: RESTRoute,
        _ parts: RequestAuthenticator.SignedParts
    ) async -> Result<JSONObject, RESTResponse> {
        let headers = parts.headers
        switch route.authorization {
        case .none:
            return .success([:])
        case .apiKey:
            guard let key = headers["x-api-key"], authorizer.isValidAPIKey(key) else { return .failure(Self.forbidden) }
            return .success(["apiKey": .string(key)])
        case .awsIAM:
            guard let header = headers["authorization"], header.hasPrefix("AWS4-HMAC-SHA256") else {
                return .failure(Self.missingToken)
            }
            do {
                let identity = try await authorizer.verifySignature(parts, service: "execute-api")
                // Identity pool credentials say which identity and role they stand for, as API
                // Gateway's `cognitoAuthenticationType` does.
                return .success([
                    "accessKey": identity.claims["accessKeyId"] ?? .null,
                    "cognitoIdentityId": identity.claims["cognitoIdentityId"] ?? .null,
                    "cognitoIdentityPoolId": identity.claims["cognitoIdentityPoolId"] ?? .null,
                    "cognitoAuthenticationType": identity.claims["cognitoIdentityAuthType"] ?? .null,
                ])
            } catch {
                return .failure(RESTResponse(status: 403, message: Self.apiGatewayMessage(error)))
            }
        case .amazonCognitoUserPools, .openIDConnect:
            guard let token = headers["authorization"], !token.isEmpty else { return .failure(Self.unauthorized) }
            do {
                let identity = try await authorizer.tokens.identity(for: token, modes: [route.authorization])
                return .success(["claims": .object(identity.claims)])
            } catch {
                return .failure(Self.unauthorized)
            }
        case .function:
            // `StratusHTTPServer.run` refuses such routes before listening (`RESTAPI.validate`).
            return .failure(Self.unauthorized)
        }
    }

    /// Notes the route's authorization mode in the request's log entry, and who the caller is
    /// when the request is recorded.
    private static func note(_ mode: Identity.AuthorizationMode, identity: JSONObject) {
        guard let entry = RequestLogEntry.current else { return }
        entry.note(authorizationMode: mode.rawValue)
        guard entry.isRecorded else { return }
        var claims = identity["claims"]?.objectValue ?? [:]
        if mode == .awsIAM {
            // The claims an IAM identity holds, under the names the event gives them.
            for (claim, member) in [
                ("accessKeyId", "accessKey"), ("cognitoIdentityId", "cognitoIdentityId"),
                ("cognitoIdentityAuthType", "cognitoAuthenticationType"),
            ] {
                if let value = identity[member], !value.isNull { claims[claim] = value }
            }
        }
        let caller = Identity(authorizationMode: mode, claims: claims)
        entry.note(identity: caller.summary(apiKey: identity["apiKey"]?.stringValue))
    }

    /// Notes a refusal's message as the request's error, when the request is recorded.
    private static func note(refusal: RESTResponse) {
        guard let entry = RequestLogEntry.current, entry.isRecorded, let body = try? JSON(parsing: refusal.body) else {
            return
        }
        entry.note(errors: [body])
    }

    /// API Gateway's message for a SigV4 refusal: for a signature that does not match, it
    /// adds a sentence and quotes the canonical request and string to sign it computed.
    static func apiGatewayMessage(_ rejection: HTTPRejection) -> String {
        guard let expected = rejection.expectedSigning else { return rejection.message }
        return rejection.message + " Consult the service documentation for details.\n\n"
            + "The Canonical String for this request should have been\n'\(expected.canonicalRequest)'\n\n"
            + "The String-to-Sign should have been\n'\(expected.stringToSign)'\n"
    }

    // MARK: - The proxy integration

    private func proxyEvent(
        api: RESTAPI,
        route: RESTRoute,
        parameters: JSONObject,
        request: Request,
        resourcePath: String,
        headers: SigV4Request.Headers,
        body: Data,
        identity: JSONObject
    ) -> JSON {
        var single = JSONObject()
        var multi = JSONObject()
        for field in headers {
            single[field.name] = .string(field.value)
            multi[field.name] = .array((multi[field.name]?.arrayValue ?? []) + [.string(field.value)])
        }
        var query = JSONObject()
        var multiQuery = JSONObject()
        for item in URLComponents(string: "http://host/?" + (request.uri.query ?? ""))?.queryItems ?? [] {
            let value = JSON.string(item.value ?? "")
            query[item.name] = value
            multiQuery[item.name] = .array((multiQuery[item.name]?.arrayValue ?? []) + [value])
        }
        let text = String(data: body, encoding: .utf8)
        var context: JSONObject = [
            "resourcePath": .string(route.path),
            "httpMethod": .string(request.method.rawValue),
            "path": .string(request.uri.path),
            "stage": .string(api.name),
            "requestId": .string(UUID().uuidString.lowercased()),
            "requestTimeEpoch": .int(Int(clock().timeIntervalSince1970 * 1000)),
            "identity": [
                "sourceIp": "127.0.0.1",
                "accessKey": identity["accessKey"] ?? .null,
                "apiKey": identity["apiKey"] ?? .null,
                "cognitoIdentityId": identity["cognitoIdentityId"] ?? .null,
                "cognitoIdentityPoolId": identity["cognitoIdentityPoolId"] ?? .null,
                "cognitoAuthenticationType": identity["cognitoAuthenticationType"] ?? .null,
            ],
        ]
        if let claims = identity["claims"] {
            context["authorizer"] = ["claims": claims]
        }
        return [
            "resource": .string(route.path),
            "path": .string(resourcePath),
            "httpMethod": .string(request.method.rawValue),
            "headers": .object(single),
            "multiValueHeaders": .object(multi),
            "queryStringParameters": query.isEmpty ? .null : .object(query),
            "multiValueQueryStringParameters": multiQuery.isEmpty ? .null : .object(multiQuery),
            "pathParameters": parameters.isEmpty ? .null : .object(parameters),
            "stageVariables": .null,
            "requestContext": .object(context),
            "body": body.isEmpty ? .null : .string(text ?? body.base64EncodedString()),
            "isBase64Encoded": .bool(!body.isEmpty && text == nil),
        ]
    }

    private func handle(
        _ handler: RESTHandler,
        event: JSON,
        resourcePath: String,
        request: Request,
        body: Data
    ) async throws -> JSON {
        switch handler {
        case .echo:
            return Self.echo(
                method: request.method.rawValue,
                resourcePath: resourcePath,
                query: request.uri.query,
                body: body
            )
        case .function(let function):
            return try await function(event)
        case .command(let arguments, let timeout):
            let name = arguments.joined(separator: " ")
            let output: Data
            do {
                output = try await ExternalCommand(arguments: arguments, workingDirectory: nil, timeout: timeout)
                    .run(input: event.data)
            } catch {
                throw ExternalCommand.Failure(problem: "'\(name)' \(error.problem)")
            }
            do {
                return try JSON(parsing: output)
            } catch {
                throw ExternalCommand.Failure(problem: "'\(name)' wrote no JSON on its standard output (\(error)).")
            }
        }
    }

    /// The answers of the `/items` routes of Amplify's "Serverless express function" template.
    static func echo(method: String, resourcePath: String, query: String?, body: Data) -> JSON {
        let url = resourcePath + (query.map { $0.isEmpty ? "" : "?" + $0 } ?? "")
        // A body that is not JSON echoes as `{}`, the body the template's JSON parser leaves when it
        // parses none.
        let parsedBody = (try? JSON(parsing: body)) ?? [:]
        let content: JSON
        switch method {
        case "GET", "HEAD": content = ["success": "get call succeed!", "url": .string(url)]
        case "POST": content = ["success": "post call succeed!", "url": .string(url), "body": parsedBody]
        case "PUT": content = ["success": "put call succeed!", "url": .string(url), "body": parsedBody]
        case "DELETE": content = ["success": "delete call succeed!", "url": .string(url)]
        default:
            let page =
                "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>Error</title>\n</head>\n"
                + "<body>\n<pre>Cannot \(method) \(resourcePath)</pre>\n</body>\n</html>\n"
            return [
                "statusCode": 404,
                "headers": ["content-type": "text/html; charset=utf-8", "access-control-allow-headers": "*"],
                "body": .string(page),
                "isBase64Encoded": false,
            ]
        }
        return [
            "statusCode": 200,
            "headers": ["content-type": "application/json; charset=utf-8", "access-control-allow-headers": "*"],
            "body": .string(content.text),
            "isBase64Encoded": false,
        ]
    }
}

/// A REST response: status, headers, body.
struct RESTResponse: Error, Sendable {
    var status: Int
    var headers: [(String, String)]
    var body: Data

    init(status: Int, message: String) {
        self.status = status
        self.headers = [("content-type", "application/json")]
        self.body = (["message": .string(message)] as JSON).data
    }

    /// A Lambda proxy response: `statusCode`, `headers`, `multiValueHeaders`, `body`,
    /// `isBase64Encoded`; `nil` when it is not one.
    init?(proxyResponse json: JSON) {
        guard let object = json.objectValue, let status = object["statusCode"]?.intValue, (100...599).contains(status)
        else { return nil }
        self.status = status
        var headers: [(String, String)] = []
        for (name, value) in object["headers"]?.objectValue ?? [:] {
            guard let text = value.stringValue ?? (value.isNull ? nil : value.text) else { continue }
            headers.append((name, text))
        }
        for (name, values) in object["multiValueHeaders"]?.objectValue ?? [:] {
            for value in values.arrayValue ?? [] {
                if let text = value.stringValue { headers.append((name, text)) }
            }
        }
        self.headers = headers
        switch object["body"] {
        case .string(let text)?:
            if object["isBase64Encoded"]?.boolValue == true {
                guard let data = Data(base64Encoded: text) else { return nil }
                body = data
            } else {
                body = Data(text.utf8)
            }
        case nil, .null?:
            body = Data()
        default:
            return nil
        }
    }

    func response(cors: Bool) -> Response {
        var fields = HTTPFields()
        for (name, value) in headers {
            guard let field = HTTPField.Name(name) else { continue }
            fields.append(HTTPField(name: field, value: value))
        }
        if cors, fields[.accessControlAllowOrigin] == nil {
            fields[.accessControlAllowOrigin] = "*"
        }
        return Response(
            status: HTTPResponse.Status(code: status),
            headers: fields,
            body: ResponseBody(byteBuffer: ByteBuffer(data: body))
        )
    }
}
