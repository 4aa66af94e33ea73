import Amplify

extension SyncEngine {
    /// A record a subscription delivered while the same record had an outbox event in flight.
    struct HeldEcho: Sendable {
        let modelName: String
        let item: JSONValue
    }

    /// Holds `item` when its record has an outbox event in flight, and says whether it did.
    ///
    /// Such a record is most often the event's own write coming back, and the event's answer
    /// carries the same record: writing it to the store on its own (where it would wait for
    /// the answer, see ``StorageEngine/reconcile(_:table:_:_:)``) would cost a transaction per
    /// sent event. Only the latest one is held; once the event is answered,
    /// ``release(_:answered:)`` drops it when the answer is as new, and applies it otherwise.
    func holdWhileInFlight(_ item: JSONValue, modelName: String) -> Bool {
        // A record without a readable identifier is not held: the store refuses it and reports
        // why, naming the record.
        guard let table = storage.catalog.tables[modelName], let identifier = try? table.identifier(of: item) else {
            return false
        }
        let key = RecordKey(modelName: modelName, identifier: identifier)
        return state.withLock { state in
            guard state.inFlight.contains(key) else { return false }
            if let held = state.echoes[key], let heldVersion = held.item["_version"]?.intValue,
                let version = item["_version"]?.intValue, version < heldVersion
            {
                return true
            }
            state.echoes[key] = HeldEcho(modelName: modelName, item: item)
            return true
        }
    }

    /// Applies the records held for records no longer in flight, unless the answer of their
    /// event (`answered`, by record) has them already: a `_version` as high or higher.
    func release(_ echoes: [RecordKey: HeldEcho], answered: [RecordKey: JSONValue] = [:]) async {
        for (key, echo) in echoes {
            if let version = echo.item["_version"]?.intValue,
                let answer = answered[key]?["_version"]?.intValue, version <= answer
            {
                continue
            }
            await apply(echo.item, modelName: echo.modelName)
        }
    }
}
