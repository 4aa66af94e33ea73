import AWSPluginsCore
import Foundation
import HTTPTypes
import Hummingbird

/// `POST /graphql` and `GET /graphql`: parse, authorize, run with limits, answer as AppSync does.
struct GraphQLEndpoint: Sendable {
    let server: StratusServer
    let authorizer: RequestAuthorizer
    let limits: ServerLimits
    let log: @Sendable (String) -> Void

    /// The GraphQL request the body or query string carried.
    struct Operation: Sendable {
        var query: String
        var variables: JSONObject
        var operationName: String?

        /// The operation of a request body (`{query, variables, operationName}`; `variables`
        /// may also be JSON text), or `nil` when it has no query or unreadable variables.
        init?(_ object: JSONObject) {
            guard let query = object["query"]?.stringValue, !query.isEmpty else { return nil }
            switch object["variables"] {
            case .object(let value)?: variables = value
            case .null?, nil: variables = [:]
            case .string(let text)?:
                guard let parsed = try? JSON(parsing: text), let value = parsed.objectValue else { return nil }
                variables = value
            default: return nil
            }
            self.query = query
            operationName = object["operationName"]?.stringValue
        }
    }

    func respond(to request: Request) async -> Response {
        do {
            var request = request
            let body: Data
            if request.method == .get {
                body = Data()
            } else {
                do {
                    body = Data(buffer: try await request.collectBody(upTo: limits.maxRequestBytes))
                } catch {
                    throw HTTPRejection(
                        status: 413,
                        errorType: "RequestEntityTooLargeException",
                        message:
                            "The request body is larger than \(limits.maxRequestBytes) bytes. Send a smaller request."
                    )
                }
            }
            let operation = try parse(request: request, body: body)
            let identity = try await authorizer.identity(
                for: RequestAuthorizer.SignedParts(request: request, body: body)
            )
            let result = await execute(operation, identity: identity)
            return Self.response(status: 200, body: result)
        } catch let rejection as HTTPRejection {
            return Self.response(status: rejection.status, body: rejection.body)
        } catch {
            log("Internal failure answering \(request.method) \(request.uri.path): \(error)")
            return Self.response(
                status: 500,
                body: [
                    "errors": [
                        [
                            "errorType": "InternalFailure",
                            "message": "An internal failure occurred. See the server log.",
                        ]
                    ]
                ]
            )
        }
    }

    private func parse(request: Request, body: Data) throws(HTTPRejection) -> Operation {
        let object: JSONObject
        if request.method == .get {
            let parameters = request.uri.queryParameters
            guard let query = parameters["query"].map(String.init), !query.isEmpty else { throw .unparsable }
            var members: [(String, JSON)] = [("query", .string(query))]
            if let text = parameters["variables"].map(String.init) {
                guard let variables = try? JSON(parsing: text), variables.objectValue != nil else { throw .unparsable }
                members.append(("variables", variables))
            }
            if let name = parameters["operationName"].map(String.init) {
                members.append(("operationName", .string(name)))
            }
            object = JSONObject(members)
        } else {
            guard !body.isEmpty else { throw .emptyBody }
            guard let json = try? JSON(parsing: body), let parsed = json.objectValue else { throw .unparsable }
            object = parsed
        }
        guard let operation = Operation(object) else { throw .unparsable }
        return operation
    }

    private func execute(_ operation: Operation, identity: Identity) async -> JSON {
        let server = server
        let work = Task {
            await server.execute(
                query: operation.query,
                variables: operation.variables,
                operationName: operation.operationName,
                identity: identity
            ).body
        }
        guard let result = await ExecutionDeadline.value(of: work, timeout: limits.executionTimeout) else {
            return ["data": nil, "errors": [["errorType": "ExecutionTimeout", "message": "Execution timed out."]]]
        }
        if result.data.count > limits.maxResponseBytes {
            return [
                "data": nil,
                "errors": [
                    [
                        "errorType": "ResponsePayloadTooLarge",
                        "message": .string(
                            "The response is larger than \(limits.maxResponseBytes) bytes. Select fewer fields or a smaller limit."
                        ),
                    ]
                ],
            ]
        }
        return result
    }

    static func response(status: Int, body: JSON) -> Response {
        Response(
            status: HTTPResponse.Status(code: status),
            headers: [.contentType: "application/json"],
            body: ResponseBody(byteBuffer: ByteBuffer(data: body.data))
        )
    }
}
