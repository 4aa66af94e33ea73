import Foundation

/// The inspection as text for a terminal: what `stratus inspect` prints.
extension DeviceStoreInspection {
    /// The inspection as lines of text, records cut to `recordWidth` characters (`…` marks a cut).
    ///
    /// ```text
    /// DataStore database /app/datastore.sqlite (format 1)
    ///
    /// Models
    ///   Blog: 2 records, 1 deleted, 2 pending
    ///
    /// Outbox: 2 pending mutations, sent in this order
    ///   1. create Blog b1, made 2025-01-01T10:00:00.000Z, in flight
    ///      record: {"id":"b1","name":"First"}
    /// …
    /// ```
    public func text(recordWidth: Int = 100) -> String {
        var lines: [String]
        switch contents {
        case .dataStore(let store): lines = store.lines(path: path, recordWidth: recordWidth)
        case .appSyncClient(let client): lines = client.lines(path: path, recordWidth: recordWidth)
        }
        while lines.last == "" { lines.removeLast() }
        return lines.joined(separator: "\n")
    }

    /// `text` cut to `width` characters, `…` marking the cut.
    static func cut(_ text: String, to width: Int) -> String {
        text.count <= width ? text : String(text.prefix(max(0, width - 1))) + "…"
    }

    /// `count` and the noun, plural when it is not 1.
    static func count(_ count: Int, _ noun: String) -> String {
        "\(count) \(noun)\(count == 1 ? "" : "s")"
    }
}

extension DeviceStoreInspection.DataStoreContents {
    fileprivate func lines(path: String, recordWidth: Int) -> [String] {
        var lines = ["DataStore database \(path) (format \(format))"]
        if let createdAt { lines.append("Created \(createdAt)") }
        if let modelsVersion { lines.append("Models version \(modelsVersion)") }
        lines.append("")
        lines.append("Models")
        if models.isEmpty { lines.append("  none") }
        for model in models {
            let records = model.records.map { DeviceStoreInspection.count($0, "record") } ?? "no table"
            lines.append("  \(model.name): \(records), \(model.deleted) deleted, \(model.pending) pending")
        }
        lines.append("")
        if outbox.isEmpty {
            lines.append("Outbox: empty")
        } else {
            lines.append("Outbox: \(DeviceStoreInspection.count(outbox.count, "pending mutation")), sent in this order")
        }
        for mutation in outbox {
            var head = "  \(mutation.position). \(mutation.kind.rawValue) \(mutation.modelName) \(mutation.modelId), "
            head += "made \(mutation.createdAt)"
            if mutation.inFlight { head += ", in flight" }
            if let version = mutation.version { head += ", version \(version)" }
            lines.append(head)
            if let transactionId = mutation.transactionId { lines.append("     transaction: \(transactionId)") }
            if let condition = mutation.condition {
                lines.append("     condition: \(condition.line(width: recordWidth))")
            }
            lines.append("     record: \(mutation.record.line(width: recordWidth))")
        }
        lines.append("")
        lines.append("Sync")
        if sync.isEmpty { lines.append("  no models") }
        for state in sync {
            var line = "  \(state.modelName): "
            if let lastSync = state.lastSync {
                let date = DeviceStoreInspection.ModelSyncState.date(ofMilliseconds: lastSync)
                line += "last synced \(DeviceStoreInspection.timestamp(date))"
            } else {
                line += "never synced"
            }
            if let expression = state.syncExpression { line += " with the sync expression \(expression)" }
            line += "; next: \(state.nextSync.kind.rawValue) sync (\(state.nextSync.reason))"
            lines.append(line)
        }
        if !held.isEmpty {
            lines.append("")
            lines.append("Held records: \(held.count) from the backend, waiting")
            for record in held {
                var line = "  \(record.kind.rawValue) \(record.modelName) \(record.modelId)"
                if let version = record.version { line += ", version \(version)" }
                switch record.kind {
                case .deferred: line += ", until its pending mutations are done"
                case .orphan:
                    if let parent = record.parent { line += ", until \(parent.modelName) \(parent.modelId) arrives" }
                }
                lines.append(line)
                lines.append("     record: \(record.record.line(width: recordWidth))")
            }
        }
        return lines
    }
}

extension DeviceStoreInspection.AppSyncClientContents {
    fileprivate func lines(path: String, recordWidth: Int) -> [String] {
        var parts: [String] = []
        if offlineQueue != nil { parts.append("offline mutation queue") }
        if cache != nil { parts.append("query cache") }
        if deltaSync != nil { parts.append("delta sync metadata") }
        var lines = ["AppSync client database \(path) (\(parts.joined(separator: ", ")))", ""]
        if let offlineQueue {
            if offlineQueue.isEmpty {
                lines.append("Offline queue: empty")
            } else {
                lines.append(
                    "Offline queue: \(DeviceStoreInspection.count(offlineQueue.count, "queued mutation")), "
                        + "sent in this order"
                )
            }
            for mutation in offlineQueue {
                var head = "  \(mutation.position). \(mutation.operationName) \(mutation.id)"
                if let recordKey = mutation.recordKey { head += " of record \(recordKey)" }
                head += ", queued \(DeviceStoreInspection.timestamp(mutation.createdAt)), "
                head += DeviceStoreInspection.count(mutation.attempts, "failed attempt")
                lines.append(head)
                if let lastError = mutation.lastError { lines.append("     last error: \(lastError)") }
                switch mutation.request {
                case .json(let body):
                    let variables = body["variables"] ?? .null
                    lines.append("     variables: \(DeviceStoreInspection.cut(variables.text, to: recordWidth))")
                case .unreadable:
                    lines.append("     request: \(mutation.request.line(width: recordWidth))")
                }
            }
            lines.append("")
        }
        if let cache {
            lines.append(
                "Query cache: \(DeviceStoreInspection.count(cache.records, "record")) (file version \(cache.fileVersion))"
            )
            for layer in cache.optimisticLayers {
                lines.append(
                    "  optimistic layer of mutation \(layer.mutation): "
                        + DeviceStoreInspection.count(layer.records, "record")
                )
            }
            lines.append("")
        }
        if let deltaSync {
            lines.append(deltaSync.isEmpty ? "Delta sync: no operation synced yet" : "Delta sync")
            for operation in deltaSync {
                lines.append(
                    "  \(operation.operation): last synced \(DeviceStoreInspection.timestamp(operation.lastSync))"
                )
            }
        }
        return lines
    }
}

extension StoredJSON {
    /// The value on one line, cut to `width`; text that is not JSON is shown with the reason.
    fileprivate func line(width: Int) -> String {
        switch self {
        case .json(let value): DeviceStoreInspection.cut(value.text, to: width)
        case .unreadable(let text, let problem):
            "not JSON (\(problem)): \(DeviceStoreInspection.cut(text, to: width))"
        }
    }
}
