import Amplify
import Synchronization

extension SyncEngine {
    /// Settles a conflict: the backend refused `event`, sent as `outgoing`, because its record
    /// `remote` changed meanwhile (`ConflictUnhandled`).
    ///
    /// A record deleted on the backend cannot be changed: the deletion wins, as in Amplify,
    /// without asking the handler. Otherwise ``DataStoreConfiguration/conflictHandler`` decides:
    /// keep the backend's record (applied here, and the event removed), or send the local change
    /// or the handler's record again, based on the backend's `_version`.
    ///
    /// - Returns: Whether to send the change again, as `outgoing` now holds it.
    /// - Throws: ``DataStoreError`` when the backend's record cannot be applied, or the
    ///   handler's record cannot be encoded.
    func settleConflict(
        with remote: JSONValue,
        of event: MutationEvent,
        _ outgoing: inout OutgoingMutation
    ) async throws -> Bool {
        let resolution =
            remote["_deleted"]?.booleanValue == true
            ? .applyRemote : await resolveConflict(event, local: outgoing.json, remote: remote)
        switch resolution {
        case .applyRemote, .none:
            _ = try await storage.finish(event, item: remote, force: true)
            return false
        case .retryLocal:
            break
        case .retry(let model):
            guard case .object(let members) = try model.jsonValue() else { return false }
            outgoing.json = members
        }
        outgoing.version = remote["_version"]?.intValue ?? outgoing.version
        return true
    }

    /// Asks the conflict handler; `nil` when it cannot be asked (a record that cannot be read).
    private func resolveConflict(
        _ event: MutationEvent,
        local: [String: JSONValue],
        remote: JSONValue
    ) async -> DataStoreConflictHandlerResolution? {
        let localModel: any Model
        let remoteModel: any Model
        do {
            localModel = try ModelRegistry.decode(modelName: event.modelName, from: .object(local))
            remoteModel = try ModelRegistry.decode(modelName: event.modelName, from: remote)
        } catch {
            report("The records of a conflict on \(event.modelName) cannot be read", error)
            return nil
        }
        let handler = configuration.conflictHandler
        return await withCheckedContinuation { continuation in
            let answered = Mutex(false)
            handler(DataStoreConflictData(local: localModel, remote: remoteModel)) { resolution in
                let first = answered.withLock { answered in
                    defer { answered = true }
                    return !answered
                }
                if first { continuation.resume(returning: resolution) }
            }
        }
    }
}
