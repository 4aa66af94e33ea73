import StratusCodegen

/// `sync*` queries: the base table or the delta journal, as AppSync's Delta Sync reads them.
extension ModelResolver {
    /// A page of a sync.
    ///
    /// Without `lastSync`, or with one older than the delta journal's TTL, the sync is a base
    /// scan: every item in key order, tombstones included. Otherwise it reads the changes made
    /// since `lastSync` from the journal, oldest first, so an item may appear in several
    /// versions. `startedAt` is the instant the first page was read, and every page of the same
    /// sync carries it.
    func sync(
        _ model: ModelType,
        field: String,
        arguments: JSONObject,
        identity: Identity,
        restriction: ItemPredicate? = nil
    ) async throws -> ResolvedConnection {
        let now = now()
        let digest = PageToken.digest(field: field, arguments: syncScope(arguments))
        var token: PageToken?
        if let text = arguments["nextToken"]?.stringValue {
            guard let decoded = PageToken(decoding: text, secret: tokenSecret, query: digest),
                decoded.startedAt != nil, (decoded.lastKey != nil) != (decoded.lastPosition != nil),
                decoded.lastKey.map({ $0.count == model.primaryKey.count }) ?? true
            else { throw ResolverError.invalidNextToken }
            token = decoded
        }
        let startedAt = token?.startedAt ?? now
        let filter = Self.restricted(
            try PredicateParser(model: model, schema: schema, identity: identity, operation: .sync)
                .parse(arguments["filter"]),
            restriction
        )
        let limit = try pageSize(arguments["limit"])
        let lastSync = arguments["lastSync"]?.intValue
        let readsJournal: Bool
        if let token {
            readsJournal = token.lastPosition != nil
        } else if let lastSync {
            readsJournal = lastSync >= startedAt - milliseconds(configuration.deltaSyncTTL)
        } else {
            readsJournal = false
        }

        if readsJournal, let lastSync {
            let page = try await storeCalls.fetchChanges(
                ChangeQuery(
                    model: model.name,
                    since: lastSync,
                    filter: filter,
                    afterPosition: token?.lastPosition,
                    limit: limit,
                    now: now
                )
            )
            return ResolvedConnection(
                items: page.items.map { ResolvedItem(model: model, item: $0) },
                nextToken: page.lastPosition.map {
                    PageToken(query: digest, lastPosition: $0, startedAt: startedAt).encoded(secret: tokenSecret)
                },
                startedAt: startedAt
            )
        }
        let page = try await storeCalls.fetchPage(
            PageQuery(
                model: model.name,
                keyCondition: .always,
                filter: filter,
                order: model.primaryKey,
                descending: false,
                after: token?.lastKey,
                limit: limit,
                now: now
            )
        )
        return ResolvedConnection(
            items: page.items.map { ResolvedItem(model: model, item: $0) },
            nextToken: page.lastKey.map {
                PageToken(query: digest, lastKey: $0, startedAt: startedAt).encoded(secret: tokenSecret)
            },
            startedAt: startedAt
        )
    }

    private func syncScope(_ arguments: JSONObject) -> JSON {
        var object = arguments
        object["limit"] = nil
        object["nextToken"] = nil
        return .object(object)
    }
}
