import AWSWire
import GraphQL

/// Requests sent with `Stratus-Transaction: atomic`: a mutation document whose root fields are
/// the generated mutations (`createPost`, `updatePost`, `deletePost`, …), applied all or nothing.
///
/// The mutations run one after another, as GraphQL runs a mutation's root fields, each reading
/// what the ones before it wrote. Their writes are committed in one store transaction once all of
/// them have run without an error; subscribers hear of them after that commit, in order. When
/// one fails, nothing is written: every root field answers `null`, each failure keeps its error,
/// and one more error, `DynamoDB:TransactionCanceledException`, gives a reason per root field
/// in document order (`None` for those that would have been written). With an
/// `Idempotency-Key`, the transaction's writes and its key are committed together.
extension StratusServer {
    /// How often an atomic request starts over after it met another request's lock or write.
    static let atomicAttempts = 8

    /// Why `query` cannot run as an atomic request, or `nil` when it can: it must be a mutation
    /// whose root fields are all generated mutations of models.
    func atomicProblem(of query: String, operationName: String?) -> String? {
        guard case .success(let document) = document(of: query),
            let operation = document.definitions.lazy.compactMap({ $0 as? OperationDefinition })
                .first(where: { operationName == nil || $0.name?.value == operationName })
        else { return nil }  // Running it answers the document's error.
        guard operation.operation == .mutation else {
            return "A request sent with 'Stratus-Transaction: atomic' must run a mutation, and this one runs a "
                + "\(operation.operation). Send queries without the header."
        }
        let generated = Set(api.schema.models.flatMap { ModelResolver.mutationFields(of: $0).map(\.field) })
        for selection in operation.selectionSet.selections {
            guard let field = selection as? Field else {
                return "A request sent with 'Stratus-Transaction: atomic' lists its mutations as fields at the "
                    + "top of the operation, without fragments. Write each mutation as a field, with an alias "
                    + "when a mutation appears more than once."
            }
            guard generated.contains(field.name.value) else {
                return "The field '\(field.name.value)' cannot run in a request sent with "
                    + "'Stratus-Transaction: atomic': only the generated create, update and delete mutations of "
                    + "models are applied all or nothing. Send '\(field.name.value)' in a request of its own."
            }
        }
        return nil
    }

    /// Runs a mutation request all or nothing (see the extension's overview) and returns its body.
    func executeAtomically(
        query: String,
        variables: JSONObject,
        operationName: String?,
        identity: Identity,
        idempotency: IdempotencyClaim?
    ) async -> JSON {
        var holding: Set<String> = []
        for _ in 0..<Self.atomicAttempts {
            await writeLocks.lock(all: holding)
            let batch = AtomicWrites(locks: writeLocks, holding: holding)
            let body = await AtomicWrites.$current.withValue(batch) {
                await execute(
                    query: query,
                    variables: variables,
                    operationName: operationName,
                    identity: identity,
                    direct: true,
                    idempotency: idempotency
                ).response.body
            }
            let held = batch.held
            let wanted = batch.wanted
            if !wanted.isEmpty {
                // Another request held a lock the batch wanted: start over holding all of them.
                await writeLocks.unlock(all: held)
                holding = held.union(wanted)
                continue
            }
            if body["errors"]?.arrayValue?.isEmpty == false {
                await writeLocks.unlock(all: held)
                return Self.cancelled(body)
            }
            let outcome: BatchWriteOutcome
            do {
                outcome = try await store.write(batch: batch.writes)
            } catch {
                await writeLocks.unlock(all: held)
                log("Internal failure committing an atomic request: \(error)")
                return AppSyncError.body(
                    [AppSyncError(.internalFailure, "An internal failure occurred. See the server log.")],
                    data: .null
                )
            }
            switch outcome {
            case .written:
                for publication in batch.publications {
                    events.publishTraced(
                        model: publication.model,
                        kind: publication.kind,
                        item: publication.item,
                        selectedFields: publication.selectedFields
                    )
                }
                await writeLocks.unlock(all: held)
                return body
            case .refused(_, .stale):
                // A server sharing the store wrote one of the items since it was read.
                await writeLocks.unlock(all: held)
                holding = held
            case .refused:
                await writeLocks.unlock(all: held)
                return Self.cancelled(body, conflict: true)
            }
        }
        return Self.cancelled(.object(["data": .null]), conflict: true)
    }

    /// The body of a cancelled atomic request: every root field `null`, the errors of the
    /// mutations that failed, and the cancellation with a reason per root field. A body with no
    /// `data` (a document that did not run) is returned as it is.
    static func cancelled(_ body: JSON, conflict: Bool = false) -> JSON {
        let errors = body["errors"]?.arrayValue ?? []
        var reasons: [String] = []
        var data = JSONObject()
        if let fields = body["data"]?.objectValue {
            var failed: [String: String] = [:]
            for error in errors {
                guard let root = error["path"]?.arrayValue?.first?.stringValue, failed[root] == nil else { continue }
                failed[root] = error["errorType"]?.stringValue.map(reason) ?? "Unknown"
            }
            for (name, _) in fields {
                data[name] = .null
                reasons.append(conflict ? "TransactionConflict" : failed[name] ?? "None")
            }
        } else if !conflict {
            return body
        } else {
            reasons = ["TransactionConflict"]
        }
        let cancellation = AppSyncError(
            .transactionCanceled,
            "Transaction cancelled, please refer cancellation reasons for specific reasons "
                + "[\(reasons.joined(separator: ", "))]"
        )
        return .object([
            "data": body["data"]?.objectValue == nil ? .null : .object(data),
            "errors": .array(errors + [cancellation.json]),
        ])
    }

    /// The reason of a cancellation for an error type: `ConditionalCheckFailed` for
    /// `DynamoDB:ConditionalCheckFailedException`, the type itself for the others.
    private static func reason(_ errorType: String) -> String {
        var reason = Substring(errorType)
        if let colon = reason.firstIndex(of: ":") { reason = reason[reason.index(after: colon)...] }
        if reason.hasSuffix("Exception") { reason = reason.dropLast("Exception".count) }
        return String(reason)
    }
}
