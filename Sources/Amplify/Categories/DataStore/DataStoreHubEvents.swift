import Foundation

extension HubPayload.EventName {
    /// The events of DataStore's sync engine, on the ``HubChannel/dataStore`` channel.
    ///
    /// When sync starts they come in this order: ``networkStatus``, ``subscriptionsEstablished``,
    /// ``syncQueriesStarted``, for each model ``syncProgress`` (once per page) then
    /// ``modelSynced``, ``syncQueriesReady``, ``ready``.
    ///
    /// ```swift
    /// let token = Amplify.Hub.listen(to: .dataStore) { payload in
    ///     if payload.eventName == HubPayload.EventName.DataStore.ready { print("synced") }
    /// }
    /// ```
    public enum DataStore {
        /// Whether the backend can be reached; the data is a ``NetworkStatusEvent``.
        public static let networkStatus = "DataStore.networkStatus"
        /// The subscriptions to every model's changes are established; no data.
        public static let subscriptionsEstablished = "DataStore.subscriptionsEstablished"
        /// The sync queries started; the data is a ``SyncQueriesStartedEvent``.
        public static let syncQueriesStarted = "DataStore.syncQueriesStarted"
        /// One page of a model's sync query was applied; the data is a ``SyncProgressEvent``.
        public static let syncProgress = "DataStore.syncProgress"
        /// One model's sync query ended; the data is a ``ModelSyncedEvent``.
        public static let modelSynced = "DataStore.modelSynced"
        /// Every model's sync query ended; no data.
        public static let syncQueriesReady = "DataStore.syncQueriesReady"
        /// DataStore is synced and sends the outbox; no data.
        public static let ready = "DataStore.ready"
        /// A local change was added to the outbox; the data is an ``OutboxMutationEvent``.
        public static let outboxMutationEnqueued = "DataStore.outboxMutationEnqueued"
        /// The backend accepted an outbox change; the data is an ``OutboxMutationEvent`` with the
        /// backend's record.
        public static let outboxMutationProcessed = "DataStore.outboxMutationProcessed"
        /// The backend refused an outbox change for good; the data is an ``OutboxMutationEvent``
        /// with the local record, which DataStore then reverts to the backend's.
        public static let outboxMutationFailed = "DataStore.outboxMutationFailed"
        /// Whether the outbox is empty; the data is an ``OutboxStatusEvent``.
        public static let outboxStatus = "DataStore.outboxStatus"
        /// A change made elsewhere was applied from a subscription; the data is the applied
        /// ``MutationEvent``.
        public static let syncReceived = "DataStore.syncReceived"
        /// The backend refused a conditional save because its record does not match the
        /// condition; the data is an ``OutboxMutationEvent`` with the local record.
        public static let conditionalSaveFailed = "DataStore.conditionalSaveFailed"
        /// `clear()` removed the local data; the data is a ``DataStoreClearedEvent`` saying how
        /// many local changes it discarded.
        public static let cleared = "DataStore.cleared"
    }
}

/// The data of ``HubPayload/EventName-swift.enum/DataStore/networkStatus``.
public struct NetworkStatusEvent: Sendable, Hashable {
    /// Whether the backend can be reached.
    public let active: Bool

    /// An event saying whether the backend can be reached.
    public init(active: Bool) {
        self.active = active
    }
}

/// The data of ``HubPayload/EventName-swift.enum/DataStore/syncQueriesStarted``.
public struct SyncQueriesStartedEvent: Sendable, Hashable {
    /// The names of the models to be synced, in the order they are synced.
    public let models: [String]

    /// An event naming the models to be synced.
    public init(models: [String]) {
        self.models = models
    }
}

/// The data of ``HubPayload/EventName-swift.enum/DataStore/modelSynced``: what one model's sync
/// query brought.
public struct ModelSyncedEvent: Sendable, Hashable {
    /// The model's name.
    public let modelName: String
    /// Whether it was a base sync (every record).
    public let isFullSync: Bool
    /// Whether it was a delta sync (the records changed since the last sync).
    public let isDeltaSync: Bool
    /// Records that were not stored before.
    public let added: Int
    /// Stored records that changed.
    public let updated: Int
    /// Stored records that were deleted.
    public let deleted: Int

    /// An event with the counts of one model's sync.
    public init(modelName: String, isFullSync: Bool, isDeltaSync: Bool, added: Int, updated: Int, deleted: Int) {
        self.modelName = modelName
        self.isFullSync = isFullSync
        self.isDeltaSync = isDeltaSync
        self.added = added
        self.updated = updated
        self.deleted = deleted
    }
}

/// The data of ``HubPayload/EventName-swift.enum/DataStore/syncProgress``: how far one model's
/// sync query has come, told after each page is applied.
///
/// ```swift
/// let token = Amplify.Hub.listen(to: .dataStore) { payload in
///     guard let progress = payload.data as? SyncProgressEvent else { return }
///     print("\(progress.modelName): \(progress.fetched) of \(progress.total.map(String.init) ?? "?")")
/// }
/// ```
public struct SyncProgressEvent: Sendable, Hashable {
    /// The model's name.
    public let modelName: String
    /// Whether it is a delta sync (the records changed since the last sync) rather than a base sync.
    public let isDeltaSync: Bool
    /// The pages applied so far, this one included (from 1).
    public let pages: Int
    /// The records the backend sent so far.
    public let fetched: Int
    /// The records written to the store so far: added, updated or deleted. A record the store
    /// has at the same version, or keeps for later (a pending local change, a parent not stored
    /// yet), is fetched but not applied.
    public let applied: Int
    /// How many records the sync query brings in all, when known: AppSync's sync queries do not
    /// say, so it is known on the last page, where it equals ``fetched``.
    public let total: Int?

    /// An event saying how far a model's sync query has come.
    public init(modelName: String, isDeltaSync: Bool, pages: Int, fetched: Int, applied: Int, total: Int?) {
        self.modelName = modelName
        self.isDeltaSync = isDeltaSync
        self.pages = pages
        self.fetched = fetched
        self.applied = applied
        self.total = total
    }
}

/// The data of ``HubPayload/EventName-swift.enum/DataStore/cleared``: what `clear()` removed.
///
/// ```swift
/// let token = Amplify.Hub.listen(to: .dataStore) { payload in
///     guard let cleared = payload.data as? DataStoreClearedEvent, cleared.discardedChanges > 0 else { return }
///     print("\(cleared.discardedChanges) changes were never sent")
/// }
/// ```
public struct DataStoreClearedEvent: Sendable, Hashable {
    /// The outbox's changes that were discarded: local changes the backend had not confirmed.
    /// Some may have reached it without their answer arriving.
    public let discardedChanges: Int
    /// The records removed from the local store, of every model.
    public let removedRecords: Int

    /// An event saying what `clear()` removed.
    public init(discardedChanges: Int, removedRecords: Int) {
        self.discardedChanges = discardedChanges
        self.removedRecords = removedRecords
    }
}

/// The data of the outbox events: the model a change is about.
public struct OutboxMutationEvent: Sendable {
    /// The record and its sync metadata.
    public struct OutboxMutationEventElement: Sendable {
        /// The record.
        public let model: any Model
        /// Its `_version` on the backend, when known.
        public let version: Int?
        /// When the backend last changed it (milliseconds since 1970), when known.
        public let lastChangedAt: Int?
        /// Whether it is deleted.
        public let deleted: Bool?

        /// An element for `model`.
        public init(model: any Model, version: Int? = nil, lastChangedAt: Int? = nil, deleted: Bool? = nil) {
            self.model = model
            self.version = version
            self.lastChangedAt = lastChangedAt
            self.deleted = deleted
        }
    }

    /// The model's name.
    public let modelName: String
    /// The record.
    public let element: OutboxMutationEventElement

    /// An event about `element`, a record of the model `modelName`.
    public init(modelName: String, element: OutboxMutationEventElement) {
        self.modelName = modelName
        self.element = element
    }
}

/// The data of ``HubPayload/EventName-swift.enum/DataStore/outboxStatus``.
public struct OutboxStatusEvent: Sendable, Hashable {
    /// Whether the outbox holds no change.
    public let isEmpty: Bool

    /// An event saying whether the outbox is empty.
    public init(isEmpty: Bool) {
        self.isEmpty = isEmpty
    }
}
