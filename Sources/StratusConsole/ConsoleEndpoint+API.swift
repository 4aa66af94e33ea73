import AsyncHTTPClient
import Foundation
import HTTPTypes
import Hummingbird
import NIOCore
import StratusCodegen
import StratusCognito
import StratusServer

/// The admin API under `/console/api`: what the page reads, documented for scripts.
extension ConsoleEndpoint {
    /// The answer to an authorized request under `/console/api/`.
    func api(_ request: Request) async -> Response {
        guard let (origin, http) = serving else {
            return Self.refusal(.serviceUnavailable, "The server is not listening yet.", json: true)
        }
        switch (request.method, request.uri.path) {
        case (.get, "/console/api/models"):
            return Self.jsonResponse(Self.models(of: http.server.api))
        case (.get, "/console/api/identities"):
            return await identities(http.authorization)
        case (.post, "/console/api/graphql"):
            return await graphQL(request, origin: origin, authorization: http.authorization)
        case (.post, "/console/api/credentials"):
            return await credentialsRoute(request, origin: origin, authorization: http.authorization)
        case (.get, "/console/api/requests"):
            return requests(request, history: http.requestHistory)
        case (.get, "/console/api/live"):
            return live(request, monitor: http.liveMonitor)
        case (_, let path) where Self.isUsersRoute(path):
            return await users(request)
        case (_, let path) where Self.isDataRoute(path):
            return await data(request, origin: origin, http: http)
        case (.get, "/console/api/functions"):
            return functions(request, server: http.server)
        case (.post, "/console/api/devices"):
            return await devices(request)
        default:
            return Self.refusal(
                .notFound,
                "The admin API has no \(request.method.rawValue) \(request.uri.path). It answers GET /console/api/models, "
                    + "GET /console/api/identities, GET /console/api/requests, GET /console/api/live, "
                    + "GET /console/api/functions, POST /console/api/devices, POST /console/api/graphql, "
                    + "POST /console/api/credentials, \(Self.dataRoutes), and (with --auth) \(Self.usersRoutes).",
                json: true
            )
        }
    }

    // MARK: - Requests

    /// `GET /console/api/requests[?after=<sequence>]`: the requests the server answered last,
    /// newest first (those numbered after `after` only), and how many it keeps.
    func requests(_ request: Request, history: RequestHistory?) -> Response {
        guard let history else {
            return Self.refusal(.notFound, "The server keeps no request history.", json: true)
        }
        let after: Int
        switch Self.after(request, seen: "request") {
        case .success(let value): after = value
        case .failure(let refusal): return refusal.response
        }
        let records = history.records.prefix { $0.sequence > after }
        return Self.jsonResponse([
            "capacity": .int(history.capacity), "requests": .array(records.map(Self.json(of:))),
        ])
    }

    /// A refusal as an error, for `Result`.
    struct Refused: Error {
        let response: Response
    }

    /// The `after` parameter of `request`: the sequence number of the last `seen` the caller has,
    /// 0 without one.
    static func after(_ request: Request, seen: String) -> Result<Int, Refused> {
        guard let text = request.uri.queryParameters["after"] else { return .success(0) }
        guard let value = Int(String(text)), value >= 0 else {
            return .failure(
                Refused(
                    response: refusal(
                        .badRequest,
                        "The 'after' parameter is '\(text)'. Give the sequence number of the last \(seen) seen (0 or "
                            + "more).",
                        json: true
                    )
                )
            )
        }
        return .success(value)
    }

    /// A record as the admin API shows it.
    static func json(of record: RequestRecord) -> JSON {
        func text(_ value: String?) -> JSON { value.map { .string($0) } ?? .null }
        let decision: JSONObject
        switch record.decision {
        case .allowed: decision = ["outcome": "ALLOWED"]
        case .refused(let reasons): decision = ["outcome": "REFUSED", "reasons": .array(reasons.map { .string($0) })]
        case .undecided: decision = ["outcome": "UNDECIDED"]
        }
        let milliseconds = (record.durationMilliseconds * 10).rounded() / 10
        return .object(
            JSONObject([
                ("sequence", .int(record.sequence)), ("requestId", .string(record.requestID)),
                ("time", timestamp(record.time)),
                ("transport", .string(record.transport.rawValue)), ("method", .string(record.method)),
                ("path", .string(record.path)), ("operationType", text(record.operationType)),
                ("operationName", text(record.operationName)), ("authorizationMode", text(record.authorizationMode)),
                ("identity", text(record.identity)), ("decision", .object(decision)), ("status", .int(record.status)),
                ("durationMs", .double(milliseconds)),
                ("resolverCount", record.resolverCount.map { .int($0) } ?? .null),
                ("errors", .array(record.errors)), ("query", text(record.query)),
                ("variables", record.variables.map { .object($0) } ?? .null),
            ])
        )
    }

    // MARK: - Models

    /// `GET /console/api/models`: for each model, its operations, its key, the fields a row
    /// shows and the input types its list, update and delete take.
    static func models(of api: ServerAPI) -> JSON {
        .object([
            "models": .array(
                api.schema.models.map { model in
                    let syncs = api.configuration.detectsConflicts(on: model.name)
                    let stored = model.fields.filter { $0.type.isLeaf && $0.relation == nil && $0.resolver == nil }
                    let key = Set(model.primaryKey)
                    let editable = stored.filter { !$0.isReadOnly && !key.contains($0.name) }
                    var entry: JSONObject = ["name": .string(model.name)]
                    entry["list"] = model.operations.list.map { .string($0) } ?? .null
                    entry["create"] = model.operations.create.map { .string($0) } ?? .null
                    entry["update"] = model.operations.update.map { .string($0) } ?? .null
                    entry["delete"] = model.operations.delete.map { .string($0) } ?? .null
                    entry["primaryKey"] = .array(model.primaryKey.map { .string($0) })
                    entry["fields"] = .array(stored.map { .string($0.name) })
                    entry["editableFields"] = .array(editable.map { .string($0.name) })
                    entry["syncFields"] = .array(syncs ? ["_version", "_deleted", "_lastChangedAt"] : [])
                    entry["filterInput"] = .string("Model\(model.name)FilterInput")
                    entry["createInput"] = .string("Create\(model.name)Input")
                    entry["updateInput"] = .string("Update\(model.name)Input")
                    entry["deleteInput"] = .string("Delete\(model.name)Input")
                    return .object(entry)
                }
            )
        ])
    }

    // MARK: - Identities

    /// `GET /console/api/identities`: who a request can run as, among the modes the API accepts:
    /// the API key, each confirmed user of the local Cognito, and the identities of
    /// ``moreIdentities(_:users:)`` (IAM, OIDC and Lambda tokens).
    func identities(_ authorization: ServerAuthorization) async -> Response {
        let modes = [authorization.defaultMode] + authorization.additionalModes
        var identities: [JSON] = []
        if modes.contains(.apiKey), !authorization.apiKeys.isEmpty {
            identities.append(["type": "API_KEY", "label": "API key"])
        }
        var users: [CognitoUserPool.UserSummary] = []
        if let cognito {
            do {
                users = try await cognito.listUsers()
            } catch {
                return Self.refusal(.internalServerError, "Cannot list the local Cognito's users: \(error)", json: true)
            }
        }
        if modes.contains(.amazonCognitoUserPools), cognito != nil {
            for user in users where user.status == "CONFIRMED" {
                let groups = user.groups.isEmpty ? "" : " (\(user.groups.joined(separator: ", ")))"
                identities.append([
                    "type": "AMAZON_COGNITO_USER_POOLS", "username": .string(user.username),
                    "label": .string("Cognito user \(user.username)\(groups)"),
                ])
            }
        }
        identities += await moreIdentities(authorization, users: users)
        return Self.jsonResponse([
            "defaultMode": .string(authorization.defaultMode.rawValue), "identities": .array(identities),
        ])
    }

    // MARK: - GraphQL

    /// `POST /console/api/graphql` with `{"query", "variables", "operationName", "identity"}`:
    /// the request sent to the server's own `/graphql` with the identity's real credentials (the
    /// API key, or tokens the local Cognito issues for the user), so that the API's
    /// authorization decides as it would for a client. Answers `{"status", "response"}`: the
    /// API's status and JSON body.
    func graphQL(_ request: Request, origin: String, authorization: ServerAuthorization) async -> Response {
        let body: JSONObject
        let example = #"{"query": "…", "variables": {…}, "identity": {"type": "API_KEY"}}"#
        switch await Self.objectBody(of: request, example: example) {
        case .success(let object): body = object
        case .failure(let refusal): return refusal.response
        }
        guard let query = body["query"]?.stringValue else {
            return Self.refusal(.badRequest, "The body has no \"query\" string.", json: true)
        }
        var forwarded: JSONObject = ["query": .string(query)]
        if let variables = body["variables"], !variables.isNull { forwarded["variables"] = variables }
        if let name = body["operationName"], !name.isNull { forwarded["operationName"] = name }
        let extraHeaders: [(String, String)]
        switch Self.extraHeaders(body["headers"]) {
        case .success(let found): extraHeaders = found
        case .failure(let problem): return Self.refusal(.badRequest, problem.message, json: true)
        }
        switch await forward(
            forwarded,
            as: body["identity"],
            headers: extraHeaders,
            origin: origin,
            authorization: authorization
        ) {
        case .success(let answer):
            return Self.jsonResponse(["status": .int(answer.status), "response": answer.body])
        case .failure(let failure):
            return failure.response(origin: origin)
        }
    }

    /// Why the console could not send a request to the API as an identity.
    enum ForwardFailure: Error {
        /// The identity cannot be run as.
        case identity(IdentityProblem)
        /// The server's `/graphql` did not answer.
        case transport(any Error)

        /// The admin API's answer: 400 naming the identity's problem, or 502.
        func response(origin: String) -> Response {
            switch self {
            case .identity(let problem):
                return ConsoleEndpoint.refusal(.badRequest, problem.message, json: true)
            case .transport(let error):
                return ConsoleEndpoint.refusal(
                    .badGateway,
                    "The request to \(origin)/graphql failed: \(error)",
                    json: true
                )
            }
        }
    }

    /// The headers the user adds to a request (`"headers": {"Idempotency-Key": "order-17"}`):
    /// none when absent; a problem for anything but an object of strings, or for a header that
    /// carries the identity's credentials, which the identity gives.
    static func extraHeaders(_ value: JSON?) -> Result<[(String, String)], HeaderProblem> {
        guard let value, !value.isNull else { return .success([]) }
        let example = #""headers": {"Idempotency-Key": "order-17"}"#
        guard let object = value.objectValue else {
            return .failure(HeaderProblem(message: "The headers are a JSON object of strings: \(example)."))
        }
        var headers: [(String, String)] = []
        for (name, value) in object {
            guard let text = value.stringValue else {
                return .failure(
                    HeaderProblem(message: "The header '\(name)' is not a string. Give each as text: \(example).")
                )
            }
            let lowercased = name.lowercased()
            guard !Self.identityHeaders.contains(lowercased), !lowercased.hasPrefix("x-amz-") else {
                return .failure(
                    HeaderProblem(
                        message: "The header '\(name)' carries credentials, which the identity chosen in Run as "
                            + "gives. Remove it, and choose the identity instead."
                    )
                )
            }
            headers.append((name, text))
        }
        return .success(headers)
    }

    /// A problem with the further headers a request names.
    struct HeaderProblem: Error {
        let message: String
    }

    /// The headers an identity's credentials travel in, and those the console sets itself.
    static let identityHeaders: Set<String> = ["authorization", "x-api-key", "host", "content-type", "content-length"]

    /// Sends `body` to the server's own `/graphql` with `identity`'s credentials (an IAM
    /// identity signs exactly the body sent) and the further `headers`: its status and JSON body.
    func forward(
        _ body: JSONObject,
        as identity: JSON?,
        headers extra: [(String, String)] = [],
        origin: String,
        authorization: ServerAuthorization
    ) async -> Result<(status: Int, body: JSON), ForwardFailure> {
        let text = JSON.object(body).text
        let headers: [(String, String)]
        switch await requestHeaders(
            for: identity,
            url: "\(origin)/graphql",
            body: Data(text.utf8),
            authorization: authorization
        ) {
        case .success(let found): headers = found
        case .failure(let problem): return .failure(.identity(problem))
        }
        var outgoing = HTTPClientRequest(url: "\(origin)/graphql")
        outgoing.method = .POST
        outgoing.headers.add(name: "content-type", value: "application/json")
        for (name, value) in headers where name.lowercased() != "content-type" {
            outgoing.headers.add(name: name, value: value)
        }
        for (name, value) in extra { outgoing.headers.add(name: name, value: value) }
        outgoing.body = .bytes(ByteBuffer(string: text))
        do {
            let response = try await HTTPClient.shared.execute(outgoing, timeout: .seconds(60))
            let bytes = try await response.body.collect(upTo: 16 << 20)
            let text = String(buffer: bytes)
            return .success((Int(response.status.code), (try? JSON(parsing: text)) ?? .string(text)))
        } catch {
            return .failure(.transport(error))
        }
    }

    /// A problem with the identity a request names.
    struct IdentityProblem: Error {
        let message: String
    }
}

// MARK: - Live

extension ConsoleEndpoint {
    /// `GET /console/api/live[?after=<sequence>]`: the open real-time connections with their
    /// subscriptions, the `data` messages delivered so far, and the last committed writes,
    /// newest first (those numbered after `after` only).
    func live(_ request: Request, monitor: LiveMonitor?) -> Response {
        guard let monitor else {
            return Self.refusal(.notFound, "The server keeps no live view.", json: true)
        }
        let after: Int
        switch Self.after(request, seen: "event") {
        case .success(let value): after = value
        case .failure(let refusal): return refusal.response
        }
        return Self.jsonResponse([
            "capacity": .int(monitor.capacity), "deliveries": .int(monitor.deliveries),
            "connections": .array(monitor.connections.map(Self.json(of:))),
            "events": .array(monitor.events(after: after).map(Self.json(of:))),
        ])
    }

    static func timestamp(_ date: Date) -> JSON {
        .string(date.formatted(Date.ISO8601FormatStyle(includingFractionalSeconds: true)))
    }

    static func json(of connection: LiveMonitor.Connection) -> JSON {
        func text(_ value: String?) -> JSON { value.map { .string($0) } ?? .null }
        return .object(
            JSONObject([
                ("id", .int(connection.id)), ("opened", timestamp(connection.opened)),
                ("authorizationMode", text(connection.authorizationMode)), ("identity", text(connection.identity)),
                (
                    "subscriptions",
                    .array(
                        connection.subscriptions.map { subscription in
                            .object(
                                JSONObject([
                                    ("id", .string(subscription.id)), ("field", .string(subscription.field)),
                                    ("model", .string(subscription.model)), ("filter", subscription.filter ?? .null),
                                    ("authorizationMode", .string(subscription.authorizationMode)),
                                    ("identity", .string(subscription.identity)),
                                    ("started", timestamp(subscription.started)),
                                ])
                            )
                        }
                    )
                ),
            ])
        )
    }

    static func json(of event: LiveMonitor.Event) -> JSON {
        .object(
            JSONObject([
                ("sequence", .int(event.sequence)), ("time", timestamp(event.time)), ("model", .string(event.model)),
                ("kind", .string(event.kind)), ("mutation", event.mutation.map { .string($0) } ?? .null),
                ("item", .object(event.item)),
            ])
        )
    }
}
