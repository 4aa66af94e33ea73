import Foundation

/// The inspection as JSON: what `stratus inspect --json` prints and the console reads. The
/// shape is documented in the stratus command-line guide ("Inspecting a device's store"); its
/// version is ``DeviceStoreInspection/jsonFormat``. Members keep the order written here, and
/// a member with no value is `null`, never left out.
extension DeviceStoreInspection {
    /// The inspection as a JSON object: `inspectionFormat`, `path`, `kind` (`"dataStore"` or
    /// `"appSyncClient"`), and the member named by `kind`.
    public var json: JSON {
        switch contents {
        case .dataStore(let store):
            [
                "inspectionFormat": .int(Self.jsonFormat), "path": .string(path), "kind": "dataStore",
                "dataStore": store.json,
            ]
        case .appSyncClient(let client):
            [
                "inspectionFormat": .int(Self.jsonFormat), "path": .string(path), "kind": "appSyncClient",
                "appSyncClient": client.json,
            ]
        }
    }
}

extension DeviceStoreInspection.DataStoreContents {
    var json: JSON {
        [
            "format": .int(format),
            "createdAt": createdAt.json,
            "modelsVersion": modelsVersion.json,
            "models": .array(
                models.map {
                    [
                        "name": .string($0.name), "records": $0.records.json, "deleted": .int($0.deleted),
                        "pending": .int($0.pending),
                    ]
                }
            ),
            "outbox": .array(outbox.map(\.json)),
            "sync": .array(sync.map(\.json)),
            "held": .array(held.map(\.json)),
        ]
    }
}

extension DeviceStoreInspection.OutboxMutation {
    var json: JSON {
        var members: JSONObject = [
            "position": .int(position),
            "sequence": .int(sequence),
            "id": .string(id),
            "modelName": .string(modelName),
            "modelId": .string(modelId),
            "kind": .string(kind.rawValue),
            "createdAt": .string(createdAt),
            "inFlight": .bool(inFlight),
            "version": version.json,
            "transactionId": transactionId.json,
        ]
        condition.addJSON(as: "condition", to: &members)
        record.addJSON(as: "record", to: &members)
        return .object(members)
    }
}

extension DeviceStoreInspection.ModelSyncState {
    var json: JSON {
        [
            "modelName": .string(modelName),
            "lastSync": lastSync.json,
            "lastSyncAt": lastSync.map { .string(DeviceStoreInspection.timestamp(Self.date(ofMilliseconds: $0))) }
                ?? .null,
            "syncExpression": syncExpression.json,
            "baseSyncAfterSchemaChange": .bool(baseSyncAfterSchemaChange),
            "nextSync": ["kind": .string(nextSync.kind.rawValue), "reason": .string(nextSync.reason)],
        ]
    }

    static func date(ofMilliseconds milliseconds: Int) -> Date {
        Date(timeIntervalSince1970: Double(milliseconds) / 1000)
    }
}

extension DeviceStoreInspection.HeldRecord {
    var json: JSON {
        var members: JSONObject = [
            "kind": .string(kind.rawValue),
            "modelName": .string(modelName),
            "modelId": .string(modelId),
            "parent": parent.map { ["modelName": .string($0.modelName), "modelId": .string($0.modelId)] } ?? .null,
            "version": version.json,
        ]
        record.addJSON(as: "record", to: &members)
        return .object(members)
    }
}

extension DeviceStoreInspection.AppSyncClientContents {
    var json: JSON {
        [
            "offlineQueue": offlineQueue.map { .array($0.map(\.json)) } ?? .null,
            "cache": cache.map { cache in
                [
                    "fileVersion": .int(cache.fileVersion),
                    "records": .int(cache.records),
                    "optimisticLayers": .array(
                        cache.optimisticLayers.map { ["mutation": .string($0.mutation), "records": .int($0.records)] }
                    ),
                ]
            } ?? .null,
            "deltaSync": deltaSync.map { operations in
                .array(
                    operations.map {
                        [
                            "operation": .string($0.operation),
                            "lastSync": .string(DeviceStoreInspection.timestamp($0.lastSync)),
                        ]
                    }
                )
            } ?? .null,
        ]
    }
}

extension DeviceStoreInspection.OfflineMutation {
    var json: JSON {
        var members: JSONObject = [
            "position": .int(position),
            "sequence": .int(sequence),
            "id": .string(id),
            "operationName": .string(operationName),
            "recordKey": recordKey.json,
            "createdAt": .string(DeviceStoreInspection.timestamp(createdAt)),
            "attempts": .int(attempts),
            "lastError": lastError.json,
        ]
        request.addJSON(as: "request", to: &members)
        return .object(members)
    }
}

extension StoredJSON {
    /// Adds the value under `key`; for text that is not JSON, `null` under `key` and the text
    /// with the reason under `unreadable<Key>`: `{"text": …, "problem": …}`.
    func addJSON(as key: String, to members: inout JSONObject) {
        switch self {
        case .json(let value):
            members[key] = value
        case .unreadable(let text, let problem):
            members[key] = .null
            members["unreadable" + key.prefix(1).uppercased() + key.dropFirst()] = [
                "text": .string(text), "problem": .string(problem),
            ]
        }
    }
}

extension StoredJSON? {
    func addJSON(as key: String, to members: inout JSONObject) {
        switch self {
        case .some(let stored): stored.addJSON(as: key, to: &members)
        case .none: members[key] = .null
        }
    }
}

extension String? {
    fileprivate var json: JSON { map { .string($0) } ?? .null }
}

extension Int? {
    fileprivate var json: JSON { map { .int($0) } ?? .null }
}
