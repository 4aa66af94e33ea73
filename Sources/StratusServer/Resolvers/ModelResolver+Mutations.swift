import AWSWire
import Foundation
import StratusCodegen
import Tracing

/// What a mutation resolver needs besides its model.
struct MutationRequest: Sendable {
    let model: ModelType
    /// The schema of the model, whose non-model types an item embeds.
    let schema: AnnotatedSchema
    /// The mutation field: `createPost`.
    let field: String
    let arguments: JSONObject
    let identity: Identity
    /// What the caller may write, from the model's `@auth` rules.
    var access: Authorization.Access = .all
    /// The access matrix of a model whose fields have rules of their own; `nil` when the
    /// model's rules alone decide.
    var fieldAccess: FieldAccessMatrix?
    /// The mutation's selection set, read once: how a `ConflictUnhandled` error shows the
    /// server's item, and which fields subscribers of the mutation see.
    let selection: SelectionTrimmer.Plan
    /// The request's `Idempotency-Key`, recorded with each write of the mutation.
    var idempotency: IdempotencyClaim?

    /// The server's item as a `ConflictUnhandled` error shows it: trimmed to the selection set,
    /// without the fields the caller may not read.
    func trim(_ item: ResolvedItem) -> JSON {
        selection.readable(by: identity, in: model, schema: schema, operation: .get).apply(to: item.item)
    }

    /// The owner rules of a create that name the caller: as Amplify's resolvers do, a create
    /// fills each owner field its input leaves out with the caller's identity, whichever rule
    /// admitted the caller (a static group, `private`, or the owner rule itself).
    var ownerRules: [Authorization.RowRule] {
        let rules = (fieldAccess?.rules(for: .create) ?? model.authRules).filter { $0.allow == .owner }
        guard !rules.isEmpty,
            case .rows(let admitted) = Authorization.access(.create, rules: rules, model: model, identity: identity)
        else { return [] }
        return admitted.filter(\.isOwner)
    }

    /// Refuses the write when the caller's owner and group rules admit none of `values`.
    func authorize(_ values: JSONObject) throws(ResolverError) {
        switch access {
        case .all: return
        case .denied:
            Authorization.noteRefusal(Authorization.denial(of: field, on: model, for: identity))
            throw Authorization.unauthorized(field: field, type: "Mutation")
        case .rows(let rules):
            guard rules.contains(where: { $0.admits(values) }) else {
                for rule in rules { Authorization.noteRefusal(rule.refusal) }
                throw Authorization.unauthorized(field: field, type: "Mutation")
            }
        }
    }

    /// Refuses a create or update whose input sets a field the caller's roles may not write,
    /// as Amplify does: `Unauthorized on [secret]`. `item` is what the caller's owner and
    /// dynamic group roles are checked against: the created values, or the stored item.
    func authorizeFields(of kind: WriteEvent.Kind, input: JSONObject, item: JSONObject) throws(ResolverError) {
        guard let fieldAccess else { return }
        var alwaysAllowed: Set<String> = [
            TableLayout.versionColumn, TableLayout.deletedColumn, TableLayout.lastChangedAtColumn,
        ]
        let denied: [String]?
        switch kind {
        case .create:
            denied = fieldAccess.deniedFields(
                creating: input,
                item: item,
                model: model,
                identity: identity,
                alwaysAllowed: alwaysAllowed
            )
        case .update:
            alwaysAllowed.formUnion(model.primaryKey)
            denied = fieldAccess.deniedFields(
                updating: input,
                item: item,
                model: model,
                identity: identity,
                alwaysAllowed: alwaysAllowed
            )
        case .delete:
            return
        }
        guard let denied else { throw Authorization.unauthorized(field: field, type: "Mutation") }
        guard denied.isEmpty else {
            throw ResolverError(
                errorType: .unauthorized,
                message: "Unauthorized on [\(denied.joined(separator: ", "))]"
            )
        }
    }
}

/// `create*`, `update*` and `delete*`.
extension ModelResolver {
    /// The mutation fields of `model` and what each does.
    static func mutationFields(of model: ModelType) -> [(field: String, kind: WriteEvent.Kind)] {
        WriteEvent.Kind.allCases.compactMap { kind in kind.mutationField(of: model).map { ($0, kind) } }
    }

    /// Runs the mutation of `kind`.
    func mutate(_ kind: WriteEvent.Kind, _ request: MutationRequest) async throws -> ResolvedItem {
        switch kind {
        case .create: try await create(request)
        case .update: try await update(request)
        case .delete: try await delete(request)
        }
    }

    /// How often a write whose item changed underneath it is tried again. Within one server the
    /// item's write lock keeps that rare; servers sharing a database race for it, and each try
    /// has one winner.
    static let writeAttempts = 32

    /// Waits a random while before trying a write again after `attempt` lost a race, up to
    /// 2^attempt milliseconds (at most 64), so that racing writers spread out.
    func backOff(after attempt: Int) async {
        let limit = 1 << min(attempt, 6)
        // Cancelled, the wait only ends sooner: the write that follows sees the cancellation.
        try? await Task.sleep(for: .microseconds(Int.random(in: 0...(limit * 1000))))
    }

    func create(_ request: MutationRequest) async throws -> ResolvedItem {
        let model = request.model
        let input = request.arguments["input"]?.objectValue ?? [:]
        let condition = try PredicateParser(model: model, schema: schema, identity: request.identity, operation: .get)
            .parse(request.arguments["condition"])
        let now = now()
        var values = JSONObject()
        for field in writableFields(of: model) {
            if let value = input[field.name] {
                let stored = try storedValue(value, type: field.type, in: schema)
                if !stored.isNull { values[field.name] = stored }
            } else if let value = try DefaultValue.of(field, in: model.name, schema: schema) {
                values[field.name] = value
            }
        }
        for rule in request.ownerRules where values[rule.field] == nil {
            values[rule.field] = rule.isList ? .array([.string(rule.values[0])]) : .string(rule.values[0])
        }
        try request.authorize(values)
        try request.authorizeFields(of: .create, input: input, item: values)
        if model.primaryKey == ["id"], values["id"] == nil {
            values["id"] = .string(UUID.systemRandom().uuidString.lowercased())
        }
        for name in model.timestampFields where values[name] == nil {
            values[name] = .string(Timestamp.iso8601(milliseconds: now))
        }
        let item = StoredItem(
            values: values,
            version: conflictDetection(model) ? 1 : nil,
            deleted: nil,
            lastChangedAt: conflictDetection(model) ? now : nil
        )
        let key = try key(of: model, in: values)
        let outcome = try await withItemLock(lockName(model, key)) {
            try await commit(
                request,
                item: item,
                ItemWrite(
                    model: model.name,
                    key: key,
                    expectation: .absent,
                    condition: condition,
                    action: .put(item),
                    journalExpiresAt: journalExpiry(now, model),
                    now: now
                )
            )
        }
        guard outcome == .written else { throw ResolverError.conditionalCheckFailed }
        return ResolvedItem(model: model, item: item)
    }

    func update(_ request: MutationRequest) async throws -> ResolvedItem {
        let model = request.model
        let input = request.arguments["input"]?.objectValue ?? [:]
        let key = try key(of: model, in: input)
        let condition = try PredicateParser(model: model, schema: schema, identity: request.identity, operation: .get)
            .parse(request.arguments["condition"])
        var changes = JSONObject()
        for field in writableFields(of: model) where !model.primaryKey.contains(field.name) {
            if let value = input[field.name] {
                changes[field.name] = try storedValue(value, type: field.type, in: schema)
            }
        }
        return try await withItemLock(lockName(model, key)) {
            try await update(request, key: key, changes: changes, condition: condition)
        }
    }

    private func update(
        _ request: MutationRequest,
        key: [JSON],
        changes: JSONObject,
        condition: ItemPredicate?
    ) async throws -> ResolvedItem {
        let model = request.model
        let input = request.arguments["input"]?.objectValue ?? [:]
        for attempt in 0..<Self.writeAttempts {
            if attempt > 0 { await backOff(after: attempt) }
            let now = now()
            guard let current = try await storeCalls.fetchItem(model: model.name, key: key, now: now) else {
                throw ResolverError.conditionalCheckFailed
            }
            try request.authorize(current.values)
            try request.authorizeFields(of: .update, input: input, item: current.values)
            var next = StoredItem(values: current.values, version: nil, deleted: nil, lastChangedAt: nil)
            var expiresAt: Int?
            if conflictDetection(model) {
                let version = current.version ?? 0
                next.version = version + 1
                next.lastChangedAt = now
                next.deleted = current.deleted
                if !current.isDeleted, input["_version"]?.intValue == current.version {
                    next.values = Self.apply(changes, to: current.values)
                } else {
                    switch try await resolveConflict(request, current: current, incoming: changes, key: key) {
                    case .merged(let values):
                        next.values = values
                    case .resolved(let values, let deleted):
                        next.values = values
                        next.deleted = deleted ? true : nil
                    case .removed:
                        next.deleted = true
                    }
                    if next.isDeleted { expiresAt = now + milliseconds(configuration.tombstoneTTL) }
                }
            } else {
                next.values = Self.apply(changes, to: current.values)
            }
            if let updatedAt = model.timestamps?.updatedAt, changes[updatedAt] == nil || changes[updatedAt]!.isNull {
                next.values[updatedAt] = .string(Timestamp.iso8601(milliseconds: now))
            }
            let outcome = try await commit(
                request,
                item: next,
                ItemWrite(
                    model: model.name,
                    key: key,
                    expectation: .present(version: conflictDetection(model) ? current.version : nil),
                    condition: condition,
                    action: .put(next),
                    expiresAt: expiresAt,
                    journalExpiresAt: journalExpiry(now, model),
                    now: now
                )
            )
            switch outcome {
            case .written: return ResolvedItem(model: model, item: next)
            case .stale: continue
            case .missing, .exists, .conditionFailed: throw ResolverError.conditionalCheckFailed
            }
        }
        throw ResolverError.internalFailure
    }

    func delete(_ request: MutationRequest) async throws -> ResolvedItem {
        let model = request.model
        let input = request.arguments["input"]?.objectValue ?? [:]
        let key = try key(of: model, in: input)
        let condition = try PredicateParser(model: model, schema: schema, identity: request.identity, operation: .get)
            .parse(request.arguments["condition"])
        return try await withItemLock(lockName(model, key)) {
            try await delete(request, key: key, condition: condition)
        }
    }

    private func delete(
        _ request: MutationRequest,
        key: [JSON],
        condition: ItemPredicate?
    ) async throws
        -> ResolvedItem
    {
        let model = request.model
        let input = request.arguments["input"]?.objectValue ?? [:]
        for attempt in 0..<Self.writeAttempts {
            if attempt > 0 { await backOff(after: attempt) }
            let now = now()
            guard let current = try await storeCalls.fetchItem(model: model.name, key: key, now: now) else {
                throw ResolverError.conditionalCheckFailed
            }
            try request.authorize(current.values)
            let action: ItemWrite.Action
            var next = current
            var expiresAt: Int?
            if conflictDetection(model) {
                next.version = (current.version ?? 0) + 1
                next.lastChangedAt = now
                next.deleted = true
                // A tombstone is not deleted again: each such delete would raise its version, and a
                // device that missed one of those versions would hold an older tombstone than the
                // backend. As for an update of a tombstone, the conflict strategy answers.
                if current.isDeleted || input["_version"]?.intValue != current.version {
                    switch try await resolveConflict(request, current: current, incoming: nil, key: key) {
                    case .merged:
                        throw ResolverError.conflictUnhandled(request.trim(ResolvedItem(model: model, item: current)))
                    case .resolved(let values, let deleted):
                        next.values = values
                        next.deleted = deleted ? true : nil
                    case .removed:
                        break
                    }
                }
                if next.isDeleted { expiresAt = now + milliseconds(configuration.tombstoneTTL) }
                action = .put(next)
            } else {
                action = .remove
            }
            let outcome = try await commit(
                request,
                item: next,
                ItemWrite(
                    model: model.name,
                    key: key,
                    expectation: .present(version: conflictDetection(model) ? current.version : nil),
                    condition: condition,
                    action: action,
                    expiresAt: expiresAt,
                    journalExpiresAt: journalExpiry(now, model),
                    now: now
                )
            )
            switch outcome {
            case .written: return ResolvedItem(model: model, item: next)
            case .stale: continue
            case .missing, .exists, .conditionFailed: throw ResolverError.conditionalCheckFailed
            }
        }
        throw ResolverError.internalFailure
    }

    // MARK: - Helpers

    /// Writes `write` and, once it is committed, publishes `item` (the item as stored after the
    /// write; for a removal, the last stored values) to the subscribers of the mutation.
    ///
    /// Callers hold the item's write lock, so events of one item are published in commit order.
    /// A store shared by several servers records the announcement in the write's transaction
    /// instead, and every server publishes it from the store's journal.
    /// The request's `Idempotency-Key` is recorded in the write's transaction.
    ///
    /// Every write of an item passes here, whichever path made its values (an input, an
    /// automerge, a conflict handler, the direct mutations), so the item size limit is kept here:
    /// an item over ``StoredItem/maximumSize`` is refused with DynamoDB's error and nothing is
    /// written. A delete is not refused: it marks the item it finds.
    private func commit(_ request: MutationRequest, item: StoredItem, _ write: ItemWrite) async throws -> WriteOutcome {
        var write = write
        write.idempotency = request.idempotency
        let kind = WriteEvent.Kind(field: request.field, of: request.model)
        if kind != .delete, case .put(let stored) = write.action, stored.size > StoredItem.maximumSize {
            throw ResolverError.itemTooLarge
        }
        if store.announcesWrites, let kind {
            write.announcement = WriteAnnouncement(
                kind: kind,
                item: item,
                selectedFields: request.selection.fieldNames
            )
        }
        let outcome = try await storeCalls.write(write)
        if outcome == .written, !store.announcesWrites, let kind, let batch = AtomicWrites.current {
            // An atomic request's subscribers hear of its writes once all of them committed.
            batch.keep(
                .init(model: request.model, kind: kind, item: item, selectedFields: request.selection.fieldNames)
            )
        } else if outcome == .written, !store.announcesWrites, let kind {
            events.publishTraced(
                model: request.model,
                kind: kind,
                item: item,
                selectedFields: request.selection.fieldNames
            )
        }
        return outcome
    }

    /// Runs `body` holding the write lock `name`: until it returns, or in an atomic request
    /// until the request's batch commits (``AtomicWrites``).
    private func withItemLock<T: Sendable>(_ name: String, _ body: () async throws -> T) async throws -> T {
        if let batch = AtomicWrites.current { return try await batch.withLock(name, body) }
        return try await locks.withLock(name, body)
    }

    /// The name of an item's write lock.
    private func lockName(_ model: ModelType, _ key: [JSON]) -> String {
        ItemWrite.lockName(model: model.name, key: key)
    }

    /// The fields a mutation input may set: stored fields but the implicit timestamps.
    func writableFields(of model: ModelType) -> [StratusCodegen.Field] {
        model.storedFields.filter { !($0.isImplicit && $0.isReadOnly) }
    }

    /// When a change made now leaves the delta journal; `nil` without conflict detection.
    private func journalExpiry(_ now: Int, _ model: ModelType) -> Int? {
        conflictDetection(model) ? now + milliseconds(configuration.deltaSyncTTL) : nil
    }

    /// `values` with `changes` applied: `null` removes a field.
    static func apply(_ changes: JSONObject, to values: JSONObject) -> JSONObject {
        var result = values
        for (name, value) in changes {
            result[name] = value.isNull ? nil : value
        }
        return result
    }
}
