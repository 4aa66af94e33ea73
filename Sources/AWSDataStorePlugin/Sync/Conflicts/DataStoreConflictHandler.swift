import Amplify

/// The records of a conflict: the local change and the backend's record.
public struct DataStoreConflictData: Sendable {
    /// The local record the change wanted to write.
    public let local: any Model
    /// The backend's record.
    public let remote: any Model
}

/// How a conflict is settled.
public enum DataStoreConflictHandlerResolution: Sendable {
    /// Keep the backend's record and drop the local change.
    case applyRemote
    /// Send the local change again, based on the backend's version.
    case retryLocal
    /// Send this record instead, based on the backend's version.
    case retry(any Model)
}

/// Answers a conflict.
public typealias DataStoreConflictHandlerResolver = @Sendable (DataStoreConflictHandlerResolution) -> Void

/// Settles a conflict: called with the records, it calls the resolver once.
public typealias DataStoreConflictHandler =
    @Sendable (DataStoreConflictData, @escaping DataStoreConflictHandlerResolver) ->
    Void
