import AsyncHTTPClient
import Foundation
import HTTPTypes
import Hummingbird
import NIOCore
import StratusCodegen
import StratusServer

/// The Data page's admin API beyond the GraphQL route: an item's history from the delta journal,
/// and made-up items created through the API as an identity.
extension ConsoleEndpoint {
    /// Whether `path` is one of the Data page's routes.
    static func isDataRoute(_ path: String) -> Bool {
        path == "/console/api/history" || path == "/console/api/generate"
    }

    /// The routes of the Data page, as the admin API's refusal of an unknown route lists them.
    static let dataRoutes = "GET /console/api/history?model=<model>&<key field>=<value>, POST /console/api/generate"

    /// The answer to an authorized request of the Data page:
    ///
    /// - `GET /console/api/history?model=Post&id=p1` (each primary key field of a composite key
    ///   as its own parameter): `{"model", "key", "currentVersion", "retentionSeconds",
    ///   "missesOlderVersions", "versions": [{"version", "lastChangedAt", "time", "operation",
    ///   "fields"}]}`, oldest first, read from the store's delta journal.
    /// - `POST /console/api/generate` with `{"model", "count", "identity"?, "seed"?, "preview"?}`:
    ///   `count` (1 to 100) made-up items created one by one with the model's create mutation as
    ///   the identity, answering `{"model", "requested", "created", "items": [<keys>],
    ///   "refusals": [{"index", "input", "errors"}]}`; with `"preview": true`, the inputs it
    ///   would send (`{"model", "items"}`), nothing created.
    func data(_ request: Request, origin: String, http: StratusHTTPServer) async -> Response {
        switch (request.method, request.uri.path) {
        case (.get, "/console/api/history"):
            return await history(request, server: http.server)
        case (.post, "/console/api/generate"):
            return await generate(request, origin: origin, http: http)
        default:
            return Self.refusal(
                .notFound,
                "The admin API has no \(request.method.rawValue) \(request.uri.path). The Data page's routes are "
                    + "\(Self.dataRoutes).",
                json: true
            )
        }
    }

    // MARK: - History

    /// `GET /console/api/history`.
    func history(_ request: Request, server: StratusServer) async -> Response {
        let parameters = request.uri.queryParameters
        guard let name = parameters["model"].map({ String($0) }), !name.isEmpty else {
            return Self.refusal(
                .badRequest,
                "Name the model and the item's key: /console/api/history?model=Post&id=p1.",
                json: true
            )
        }
        guard let model = server.api.schema.model(named: name) else {
            let names = server.api.schema.models.map(\.name).joined(separator: ", ")
            return Self.refusal(.notFound, "The schema has no model '\(name)'. Its models are \(names).", json: true)
        }
        var key = JSONObject()
        for (parameter, value) in parameters where parameter != "model" {
            let field = String(parameter)
            let text = String(value)
            guard let type = model.field(named: field)?.type, model.primaryKey.contains(field) else {
                key[field] = .string(text)  // refused below, naming the key fields
                continue
            }
            let number: JSON??
            switch type.kind {
            case .scalar(.int), .scalar(.awsTimestamp): number = .some(Int(text).map { .int($0) })
            case .scalar(.float): number = .some(Double(text).map { .double($0) })
            default: number = nil
            }
            switch number {
            case .some(.some(let value)):
                key[field] = value
            case .some(nil):
                let article = type.name == "Float" ? "a" : "an"
                return Self.refusal(
                    .badRequest,
                    "The key field \(field) of \(name) is \(article) \(type.name): '\(text)' is not one.",
                    json: true
                )
            case nil:
                key[field] = .string(text)
            }
        }
        let found: ItemHistory
        do {
            found = try await server.history(model: name, key: key)
        } catch {
            return Self.refusal(
                error.isStoreFailure ? .internalServerError : .badRequest,
                error.description,
                json: true
            )
        }
        let seconds = found.retention.components.seconds
        return Self.jsonResponse(
            .object(
                JSONObject([
                    ("model", .string(name)), ("key", .object(key)),
                    ("currentVersion", found.currentVersion.map { .int($0) } ?? .null),
                    ("retentionSeconds", .int(Int(seconds))),
                    ("missesOlderVersions", .bool(found.missesOlderVersions)),
                    ("versions", .array(found.versions.map(Self.json(of:)))),
                ])
            )
        )
    }

    static func json(of version: ItemHistory.Version) -> JSON {
        let time = version.lastChangedAt.map { timestamp(Date(timeIntervalSince1970: Double($0) / 1000)) }
        return .object(
            JSONObject([
                ("version", version.version.map { .int($0) } ?? .null),
                ("lastChangedAt", version.lastChangedAt.map { .int($0) } ?? .null), ("time", time ?? .null),
                ("operation", .string(version.operation.rawValue)), ("fields", .object(version.fields)),
            ])
        )
    }

    // MARK: - Generate

    /// The most items one request makes.
    static let generatedItemsLimit = 100

    /// `POST /console/api/generate`.
    func generate(_ request: Request, origin: String, http: StratusHTTPServer) async -> Response {
        let body: JSONObject
        let example = #"{"model": "Post", "count": 5, "identity": {"type": "API_KEY"}}"#
        switch await Self.objectBody(of: request, example: example) {
        case .success(let object): body = object
        case .failure(let refusal): return refusal.response
        }
        let schema = http.server.api.schema
        guard let name = body["model"]?.stringValue else {
            return Self.refusal(.badRequest, "The body names no model. Send \(example).", json: true)
        }
        guard let model = schema.model(named: name) else {
            let names = schema.models.map(\.name).joined(separator: ", ")
            return Self.refusal(.notFound, "The schema has no model '\(name)'. Its models are \(names).", json: true)
        }
        guard let create = model.operations.create else {
            return Self.refusal(
                .badRequest,
                "\(name) has no create mutation (@model(mutations:) turns it off), so no item can be made through "
                    + "the API.",
                json: true
            )
        }
        let preview = body["preview"]?.boolValue == true
        let count = body["count"]?.intValue ?? (preview ? 1 : 0)
        guard (1...Self.generatedItemsLimit).contains(count) else {
            return Self.refusal(
                .badRequest,
                "The count is \(body["count"]?.text ?? "missing"). Ask for 1 to \(Self.generatedItemsLimit) items.",
                json: true
            )
        }
        let seed: UInt64
        if let given = body["seed"], !given.isNull {
            guard let value = given.intValue, value >= 0 else {
                return Self.refusal(
                    .badRequest,
                    "The seed is \(given.text). Give a whole number of 0 or more, or leave it out.",
                    json: true
                )
            }
            seed = UInt64(value)
        } else {
            seed = UInt64.random(in: 0...UInt64.max)
        }
        let identity = body["identity"]
        // The identity is checked once before anything is sent.
        if case .failure(let problem) = await requestHeaders(
            for: identity,
            url: "\(origin)/graphql",
            body: Data(),
            authorization: http.authorization
        ) {
            return Self.refusal(.badRequest, problem.message, json: true)
        }
        var generator = ItemGenerator(schema: schema, seed: seed)
        var related: [String: [JSONObject]] = [:]
        for link in generator.links(of: model) where related[link.model] == nil {
            switch await existingKeys(of: link.model, http: http, origin: origin, identity: identity) {
            case .success(let keys): related[link.model] = keys
            case .failure(let failure): return failure.response(origin: origin)
            }
        }
        let requiredOnly = body["requiredOnly"]?.boolValue == true
        if preview {
            let items = (0..<count).map { _ in
                JSON.object(generator.input(for: model, related: related, requiredOnly: requiredOnly))
            }
            return Self.jsonResponse(["model": .string(name), "items": .array(items)])
        }
        let selection = model.primaryKey.joined(separator: " ")
        let mutation =
            "mutation Generate($input: Create\(name)Input!) { \(create)(input: $input) { \(selection) } }"
        var created: [JSON] = []
        var refusals: [JSON] = []
        for index in 0..<count {
            let input = generator.input(for: model, related: related)
            let answer: (status: Int, body: JSON)
            switch await forward(
                ["query": .string(mutation), "variables": ["input": .object(input)]],
                as: identity,
                origin: origin,
                authorization: http.authorization
            ) {
            case .success(let found): answer = found
            case .failure(let failure): return failure.response(origin: origin)
            }
            if let item = answer.body["data"]?[create], !item.isNull {
                created.append(item)
            } else {
                let errors = answer.body["errors"] ?? .array([.object(["message": .string(answer.body.text)])])
                refusals.append(
                    .object(JSONObject([("index", .int(index)), ("input", .object(input)), ("errors", errors)]))
                )
            }
        }
        return Self.jsonResponse(
            .object(
                JSONObject([
                    ("model", .string(name)), ("requested", .int(count)), ("created", .int(created.count)),
                    ("seed", .string(String(seed))), ("items", .array(created)), ("refusals", .array(refusals)),
                ])
            )
        )
    }

    /// The keys of up to 100 live items of `model`, read with its list query as the identity
    /// (so foreign keys point only at items the identity can see); none when the API refuses
    /// the identity the list.
    func existingKeys(
        of name: String,
        http: StratusHTTPServer,
        origin: String,
        identity: JSON?
    ) async -> Result<[JSONObject], ForwardFailure> {
        guard let model = http.server.api.schema.model(named: name), let list = model.operations.list else {
            return .success([])
        }
        let syncs = http.server.api.configuration.detectsConflicts(on: name)
        let selection = (model.primaryKey + (syncs ? ["_deleted"] : [])).joined(separator: " ")
        let query = "query Related { \(list)(limit: 100) { items { \(selection) } } }"
        let answer: (status: Int, body: JSON)
        switch await forward(["query": .string(query)], as: identity, origin: origin, authorization: http.authorization)
        {
        case .success(let found): answer = found
        case .failure(let failure): return .failure(failure)
        }
        guard let items = answer.body["data"]?[list]?["items"]?.arrayValue else { return .success([]) }
        return .success(
            items.compactMap { item in
                guard var object = item.objectValue, object["_deleted"]?.boolValue != true else { return nil }
                object["_deleted"] = nil
                return object
            }
        )
    }
}
