import AWSPluginsCore
import Amplify
import Foundation
import Tracing

extension SyncEngine {
    /// Runs every model's sync query, in sync order.
    func syncQueries() async throws {
        dispatch(HubPayload.EventName.DataStore.syncQueriesStarted, SyncQueriesStartedEvent(models: modelNames))
        for name in modelNames {
            try Task.checkCancellation()
            let event: ModelSyncedEvent
            do {
                event = try await tracedSync(name)
            } catch let refused as SyncQueryRefused {
                report(refused.error)
                continue
            }
            storage.syncStatus.markSynced(name)
            storage.metrics?.synced(name)
            storage.hub.publishSynced(modelName: name)
            dispatch(HubPayload.EventName.DataStore.modelSynced, event)
        }
        dispatch(HubPayload.EventName.DataStore.syncQueriesReady)
    }

    /// Syncs one model, in a span `DataStore.sync Post` when DataStore traces: the API plugin's
    /// spans of its sync queries are its children.
    private func tracedSync(_ name: String) async throws -> ModelSyncedEvent {
        guard let tracer = storage.tracer else { return try await syncModel(name) }
        return try await tracer.withSpan("DataStore.sync \(name)", ofKind: .internal) { span in
            let event = try await syncModel(name)
            span.attributes["stratus.sync.kind"] = event.isDeltaSync ? "delta" : "base"
            span.attributes["stratus.sync.added"] = event.added
            span.attributes["stratus.sync.updated"] = event.updated
            span.attributes["stratus.sync.deleted"] = event.deleted
            return event
        }
    }

    /// Syncs one model: a delta sync when the last sync is recent and used the same
    /// expression and no schema change since asked for a base sync, a base sync otherwise.
    func syncModel(_ name: String) async throws -> ModelSyncedEvent {
        guard let table = storage.catalog.tables[name] else {
            return ModelSyncedEvent(
                modelName: name,
                isFullSync: false,
                isDeltaSync: false,
                added: 0,
                updated: 0,
                deleted: 0
            )
        }
        let filter = configuration.syncExpressions.first { $0.modelSchema.name == name }
            .flatMap { $0.modelPredicate().graphQLFilter(for: table.schema) }
        let expression = try filter.map { try CanonicalJSON.text(of: $0) }
        let stored = try await storage.lastSync(of: name)
        let afterMigration = try await storage.needsBaseSyncAfterMigration(name)
        let now = Int(configuration.clock().timeIntervalSince1970 * 1000)
        let isDelta =
            !afterMigration
            && stored.lastSync.map { now - $0 < Int(configuration.syncInterval * 1000) } == true
            && stored.expression == expression
        let lastSync = isDelta ? stored.lastSync : nil
        let readModes = table.schema.authModes(for: .read, strategy: configuration.authModeStrategy)
        var nextToken: String?
        var startedAt: Int?
        var fetched = 0
        var counts = ModelSyncCounts()
        var pages = 0
        repeat {
            let limit = max(1, min(configuration.syncPageSize, configuration.syncMaxRecords - fetched))
            let request = GraphQLRequest<JSONValue>.syncQuery(
                modelSchema: table.schema,
                filter: filter,
                limit: limit,
                nextToken: nextToken,
                lastSync: lastSync
            )
            let page = try await fetchPage(request, of: name, modes: readModes)
            let items = page["items"]?.arrayValue ?? []
            nextToken = page["nextToken"]?.stringValue
            startedAt = startedAt ?? page["startedAt"]?.intValue
            fetched += items.count
            let result = try await storage.reconcile(items, modelName: name, sameVersionToo: afterMigration)
            for refused in result.refused { report(refused) }
            counts.add(result.applied, of: name)
            pages += 1
            let isLast = nextToken == nil || fetched >= configuration.syncMaxRecords
            dispatch(
                HubPayload.EventName.DataStore.syncProgress,
                SyncProgressEvent(
                    modelName: name,
                    isDeltaSync: isDelta,
                    pages: pages,
                    fetched: fetched,
                    applied: counts.added + counts.updated + counts.deleted,
                    total: isLast ? fetched : nil
                )
            )
        } while nextToken != nil && fetched < configuration.syncMaxRecords && !Task.isCancelled
        try await storage.setLastSync(of: name, startedAt ?? stored.lastSync, expression: expression)
        if afterMigration && !Task.isCancelled { try await storage.finishBaseSyncAfterMigration(name) }
        return ModelSyncedEvent(
            modelName: name,
            isFullSync: !isDelta,
            isDeltaSync: isDelta,
            added: counts.added,
            updated: counts.updated,
            deleted: counts.deleted
        )
    }

    /// One page of `name`'s sync query.
    ///
    /// - Throws: the request's error when the whole sync is worth retrying (a network failure,
    ///   a user who signed out meanwhile); ``SyncQueryRefused`` when the backend refused it for
    ///   good.
    private func fetchPage(
        _ request: GraphQLRequest<JSONValue>,
        of name: String,
        modes: [AWSAuthorizationType?]
    ) async throws -> JSONValue {
        let response: GraphQLResponse<JSONValue>
        do {
            response = try await send(request, modes: modes, mutation: false)
        } catch {
            // Retried as a whole: a network failure, or a user who signed out meanwhile.
            if Self.isRetryable(error, sentWithIdempotencyKey: false) { throw error }
            if await awaitsUser() { throw error }
            response = .failure(.unknown("\(error)", "", error))
        }
        switch response {
        case .success(let page):
            return page
        case .failure(let error):
            throw SyncQueryRefused(
                error: DataStoreError(
                    .sync,
                    "The backend refused the sync query of \(name): \(error) Its records are not synced; check "
                        + "the API's authorization modes against the model's @auth rules (or set "
                        + "DataStoreConfiguration.authModeStrategy to .multiAuth)."
                )
            )
        }
    }

    /// A model's sync query the backend refused for good: the other models sync on.
    struct SyncQueryRefused: Error {
        let error: DataStoreError
    }
}
