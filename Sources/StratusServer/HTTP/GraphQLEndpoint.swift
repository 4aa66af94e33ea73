import AWSWire
import Foundation
import HTTPTypes
import Hummingbird

/// `POST /graphql` and `GET /graphql`: parse, authorize, run with limits, answer as AppSync does.
package struct GraphQLEndpoint: Sendable {
    let server: StratusServer
    let authorizer: RequestAuthenticator
    let limits: ServerLimits
    let log: @Sendable (String) -> Void

    /// The GraphQL request the body or query string carried.
    struct Operation: Sendable {
        var query: String
        var variables: JSONObject
        var operationName: String?
        /// Whether the request asked for its mutations all or nothing (`Stratus-Transaction: atomic`).
        var isAtomic = false

        /// The operation of a request body (`{query, variables, operationName}`; `variables`
        /// may also be JSON text), or `nil` when it has no query or unreadable variables.
        init?(_ object: JSONObject) {
            guard let query = object["query"]?.stringValue, !query.isEmpty else { return nil }
            switch object["variables"] {
            case .object(let value)?: variables = value
            case .null?, nil: variables = [:]
            case .string(let text)?:
                // Variables that are not a JSON object make the request unreadable (`nil`).
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
                        errorType: .requestEntityTooLarge,
                        message:
                            "The request body is larger than \(limits.maxRequestBytes) bytes. Send a smaller request."
                    )
                }
            }
            var operation = try parse(request: request, body: body)
            if let entry = RequestLogEntry.current {
                let summary = server.operationSummary(of: operation.query, operationName: operation.operationName)
                entry.note(
                    operationType: summary.map { "\($0.type)" },
                    operationName: summary?.name ?? operation.operationName
                )
                // Kept only for a history, and only when small enough to keep.
                if entry.isRecorded,
                    body.count + (request.uri.query?.utf8.count ?? 0) <= RequestHistory.maxKeptBodyBytes
                {
                    entry.note(query: operation.query, variables: operation.variables)
                }
            }
            let identity = try await authorizer.identity(
                for: RequestAuthenticator.SignedParts(request: request, body: body)
            )
            if let entry = RequestLogEntry.current {
                entry.note(authorizationMode: identity.authorizationMode.rawValue)
                if entry.isRecorded {
                    entry.note(identity: identity.summary(apiKey: request.headers[Self.apiKeyHeader]))
                }
            }
            // After authorization: only known callers get their document parsed.
            if request.method == .get,
                server.operationType(of: operation.query, operationName: operation.operationName) == .mutation
            {
                throw HTTPRejection.mutationOverGET
            }
            let transaction = request.headers[values: .stratusTransaction]
            if !transaction.isEmpty {
                guard transaction == ["atomic"] else { throw HTTPRejection.unknownTransaction(transaction) }
                if let problem = server.atomicProblem(of: operation.query, operationName: operation.operationName) {
                    throw HTTPRejection(status: 400, errorType: .badRequest, message: problem)
                }
                operation.isAtomic = true
            }
            let keys = request.headers[values: .idempotencyKey]
            if !keys.isEmpty,
                server.operationType(of: operation.query, operationName: operation.operationName) == .mutation
            {
                let key = try IdempotencyKey(fieldValues: keys)
                return try await IncomingRequest.$headers.withValue(Self.headers(of: request)) {
                    try await respondOnce(to: operation, identity: identity, key: key, body: body)
                }
            }
            let result = await IncomingRequest.$headers.withValue(Self.headers(of: request)) {
                await execute(operation, identity: identity)
            }
            return Self.response(status: 200, data: result)
        } catch let rejection as HTTPRejection {
            if let entry = RequestLogEntry.current, entry.isRecorded {
                entry.note(errors: rejection.body["errors"]?.arrayValue ?? [])
            }
            var response = Self.response(status: rejection.status, body: rejection.body)
            if rejection == .mutationOverGET { response.headers[.allow] = "POST" }
            return response
        } catch {
            log("Internal failure answering \(request.method) \(request.uri.path): \(error)")
            return Self.response(
                status: 500,
                body: AppSyncError.body([
                    AppSyncError(.internalFailure, "An internal failure occurred. See the server log.")
                ])
            )
        }
    }

    private func parse(request: Request, body: Data) throws(HTTPRejection) -> Operation {
        let object: JSONObject
        if request.method == .get {
            guard let parameters = FormEncoding.parameters(request.uri.query ?? ""),
                let query = parameters["query"], !query.isEmpty
            else { throw .unparsable }
            var members: [(String, JSON)] = [("query", .string(query))]
            if let text = parameters["variables"] {
                // Variables that are not a JSON object refuse the request.
                guard let variables = try? JSON(parsing: text), variables.objectValue != nil else { throw .unparsable }
                members.append(("variables", variables))
            }
            if let name = parameters["operationName"] {
                members.append(("operationName", .string(name)))
            }
            object = JSONObject(members)
        } else {
            guard !body.isEmpty else { throw .emptyBody }
            // A body that is not a JSON object refuses the request.
            guard let json = try? JSON(parsing: body), let parsed = json.objectValue else { throw .unparsable }
            object = parsed
        }
        guard let operation = Operation(object) else { throw .unparsable }
        return operation
    }

    /// The headers of `request` as resolvers pass them on (`request.headers`): names in lower
    /// case, values of repeated names joined by commas.
    static func headers(of request: Request) -> JSONObject {
        var headers = JSONObject()
        for field in request.headers {
            let name = field.name.canonicalName
            headers[name] = .string(headers[name]?.stringValue.map { $0 + "," + field.value } ?? field.value)
        }
        if let authority = request.head.authority, headers["host"] == nil { headers["host"] = .string(authority) }
        return headers
    }

    /// The body of the answer, serialized once: its size is checked on the bytes that are sent.
    private func execute(_ operation: Operation, identity: Identity) async -> Data {
        let work = Task { [self] in
            let body = await run(operation, identity: identity, idempotency: nil)
            return finalBody(body)
        }
        return await answer(of: work)
    }

    /// Runs `operation`, recording `idempotency` with its writes.
    func run(_ operation: Operation, identity: Identity, idempotency: IdempotencyClaim?) async -> JSON {
        let body = await answer(operation, identity: identity, idempotency: idempotency)
        if let entry = RequestLogEntry.current, entry.isRecorded, let errors = body["errors"]?.arrayValue {
            entry.note(errors: errors)
        }
        return body
    }

    /// The body of the server's answer to `operation`.
    private func answer(_ operation: Operation, identity: Identity, idempotency: IdempotencyClaim?) async -> JSON {
        if operation.isAtomic {
            return await server.executeAtomically(
                query: operation.query,
                variables: operation.variables,
                operationName: operation.operationName,
                identity: identity,
                idempotency: idempotency
            )
        }
        return await server.execute(
            query: operation.query,
            variables: operation.variables,
            operationName: operation.operationName,
            identity: identity,
            direct: true,
            idempotency: idempotency
        ).response.body
    }

    /// `body` serialized, or the error of a body over ``ServerLimits/maxResponseBytes``.
    func finalBody(_ body: JSON) -> Data {
        let data = body.data
        if data.count > limits.maxResponseBytes {
            let message =
                "The response is larger than \(limits.maxResponseBytes) bytes. Select fewer fields or a smaller limit."
            return AppSyncError.body([AppSyncError(.responsePayloadTooLarge, message)], data: .null).data
        }
        return data
    }

    /// What `work` answers, or the `ExecutionTimeout` error when it takes longer than
    /// ``ServerLimits/executionTimeout`` (the work goes on).
    func answer(of work: Task<Data, Never>) async -> Data {
        guard let data = await ExecutionDeadline.value(of: work, timeout: limits.executionTimeout) else {
            // The history keeps the answer sent, whatever the work, which goes on, notes later.
            if let entry = RequestLogEntry.current, entry.isRecorded {
                entry.note(errors: Self.executionTimedOutErrors.map(\.json), final: true)
            }
            return Self.executionTimedOut
        }
        return data
    }

    /// `x-api-key`, whose value a request history shows the first characters of.
    static let apiKeyHeader = HTTPField.Name("x-api-key")!

    /// The errors of a request that ran past its execution deadline.
    static let executionTimedOutErrors = [AppSyncError(.executionTimeout, "Execution timed out.")]

    /// The answer of a request that ran past its execution deadline.
    static let executionTimedOut = AppSyncError.body(executionTimedOutErrors, data: .null).data

    static func response(status: Int, body: JSON) -> Response {
        response(status: status, data: body.data)
    }

    /// A JSON answer whose body is already serialized.
    static func response(status: Int, data: Data) -> Response {
        var headers = corsHeaders
        headers[.contentType] = "application/json"
        return Response(
            status: HTTPResponse.Status(code: status),
            headers: headers,
            body: ResponseBody(byteBuffer: ByteBuffer(data: data))
        )
    }

    // MARK: - CORS

    /// The CORS headers of every answer, as AppSync sends them: any origin may read it.
    package static let corsHeaders: HTTPFields = [
        .accessControlAllowOrigin: "*",
        .accessControlExposeHeaders:
            "x-amzn-RequestId,x-amzn-ErrorType,x-amz-user-agent,x-amzn-ErrorMessage,Date,x-amz-schema-version",
    ]

    /// The answer to a CORS preflight (`OPTIONS /graphql`): `200`, no body, the methods and the
    /// headers AppSync's clients send (API key, SigV4, JWT), cacheable for two days as AppSync
    /// answers it.
    static func preflight() -> Response {
        var headers = corsHeaders
        headers[.accessControlAllowMethods] = "GET,POST,OPTIONS"
        headers[.accessControlAllowHeaders] =
            "Content-Type,X-Amz-Date,Authorization,X-Api-Key,X-Amz-Security-Token,X-Amz-Content-Sha256,X-Amz-User-Agent"
        headers[.accessControlMaxAge] = "172800"
        return Response(status: .ok, headers: headers)
    }
}

extension HTTPField.Name {
    /// `Stratus-Transaction: atomic`: the request's mutations are applied all or nothing.
    static let stratusTransaction = HTTPField.Name("Stratus-Transaction")!
}

extension HTTPRejection {
    /// A `Stratus-Transaction` header with another value than `atomic`, or several of them.
    static func unknownTransaction(_ values: [String]) -> HTTPRejection {
        HTTPRejection(
            status: 400,
            errorType: .badRequest,
            message: "The request's Stratus-Transaction header is '\(values.joined(separator: ", "))'. Send "
                + "'Stratus-Transaction: atomic' to apply the request's mutations all or nothing, or no header."
        )
    }
}
