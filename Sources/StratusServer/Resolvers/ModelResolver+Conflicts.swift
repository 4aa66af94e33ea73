import StratusCodegen

/// Conflict resolution: what a versioned write does when its `_version` is not the stored one.
extension ModelResolver {
    /// How a conflict was settled, when the write goes ahead.
    enum ConflictOutcome {
        /// Automerge: the merged field values.
        case merged(JSONObject)
        /// A custom handler's item, and whether it is a tombstone.
        case resolved(JSONObject, deleted: Bool)
        /// A custom handler removed the item.
        case removed

        /// The outcome's name in `stratus_conflicts_total`.
        var metricName: String {
            switch self {
            case .merged: "merged"
            case .resolved: "resolved"
            case .removed: "removed"
            }
        }
    }

    /// Settles a conflict between a write and the stored item `current`, or throws
    /// `ConflictUnhandled` with the stored item.
    ///
    /// `incoming` holds the fields an update sets (`null` for those it removes); `nil` for a
    /// delete, which automerge never settles.
    func resolveConflict(
        _ request: MutationRequest,
        current: StoredItem,
        incoming: JSONObject?,
        key: [JSON]
    ) async throws -> ConflictOutcome {
        do {
            let outcome = try await settle(request, current: current, incoming: incoming, key: key)
            ServerMetrics.current?.conflict(outcome.metricName)
            return outcome
        } catch {
            ServerMetrics.current?.conflict("rejected")
            throw error
        }
    }

    private func settle(
        _ request: MutationRequest,
        current: StoredItem,
        incoming: JSONObject?,
        key: [JSON]
    ) async throws -> ConflictOutcome {
        let model = request.model
        var rejected = ResolverError.conflictUnhandled(request.trim(ResolvedItem(model: model, item: current)))
        if request.arguments["input"]?.objectValue?["_version"]?.intValue == nil {
            // AppSync's message and type stay as clients match them; the fix travels in `errorInfo`.
            rejected.errorInfo = ResolverError.missingVersionInfo(model: model)
        }
        switch configuration.conflictResolution(for: model.name) {
        case .optimisticConcurrency:
            throw rejected
        case .automerge:
            guard let incoming, !current.isDeleted else { throw rejected }
            var merged = current.values
            for (name, value) in incoming {
                merged[name] = Self.automerge(server: current.values[name], incoming: value)
            }
            return .merged(merged)
        case .custom(let handler):
            let context = ConflictContext(
                typeName: model.name,
                newItem: try newItem(request),
                existingItem: existingItem(current, model: model),
                arguments: request.arguments,
                resolver: request.field,
                identity: request.identity
            )
            let resolution: ConflictResolution
            do {
                resolution = try await handler(context)
            } catch let failure as ConflictHandlerError {
                throw ResolverError(errorType: .conflictUnhandled, message: failure.message, data: rejected.data)
            } catch {
                throw rejected
            }
            switch resolution {
            case .reject:
                throw rejected
            case .remove:
                return .removed
            case .resolve(let item):
                var values = JSONObject()
                for field in writableFields(of: model) {
                    guard let value = item[field.name], !value.isNull else { continue }
                    values[field.name] = try storedValue(value, type: field.type, in: schema)
                }
                for (name, value) in zip(model.primaryKey, key) {
                    values[name] = value
                }
                for name in model.timestampFields where values[name] == nil {
                    values[name] = current.values[name]
                }
                return .resolved(values, deleted: item[TableLayout.deletedColumn]?.boolValue == true)
            }
        }
    }

    /// AppSync's automerge of one field: a value absent or null on the server takes the
    /// incoming one; lists are appended; embedded values merge field by field; any other
    /// difference keeps the server's value. `nil` leaves the field absent.
    static func automerge(server: JSON?, incoming: JSON) -> JSON? {
        guard let server, !server.isNull else { return incoming.isNull ? nil : incoming }
        switch (server, incoming) {
        case (_, .null):
            return server
        case _ where server == incoming:
            return server
        case (.array(let serverElements), .array(let incomingElements)):
            return .array(serverElements + incomingElements)
        case (.object(let serverMembers), .object(let incomingMembers)):
            var merged = serverMembers
            for (name, value) in incomingMembers {
                merged[name] = automerge(server: serverMembers[name], incoming: value)
            }
            return .object(merged)
        default:
            return server
        }
    }

    /// The mutation's input as a conflict handler sees it: values in stored form.
    private func newItem(_ request: MutationRequest) throws(ResolverError) -> JSONObject {
        var item = JSONObject()
        for (name, value) in request.arguments["input"]?.objectValue ?? [:] {
            if let field = request.model.field(named: name) {
                item[name] = try storedValue(value, type: field.type, in: schema)
            } else {
                item[name] = value
            }
        }
        return item
    }

    /// The stored item as a conflict handler sees it: values, sync metadata and `__typename`.
    func existingItem(_ item: StoredItem, model: ModelType) -> JSONObject {
        var object = item.values
        object[TableLayout.versionColumn] = item.version.map(JSON.int) ?? .null
        object[TableLayout.deletedColumn] = item.deleted.map(JSON.bool) ?? .null
        object[TableLayout.lastChangedAtColumn] = item.lastChangedAt.map(JSON.int) ?? .null
        object["__typename"] = .string(model.name)
        return object
    }
}
