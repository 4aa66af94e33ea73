import Foundation

/// A DataStore failure, with a message that names the model, the field and what to do.
///
/// ```swift
/// do {
///     try await Amplify.DataStore.save(post, where: Post.keys.rating > 3)
/// } catch let error as DataStoreError where error.code == .conditionalSaveFailed {
///     print(error.message)
/// }
/// ```
public struct DataStoreError: Error, Sendable, Hashable, CustomStringConvertible, LocalizedError {
    /// What kind of failure this is.
    public struct Code: Sendable, Hashable, CustomStringConvertible {
        let rawValue: String
        public var description: String { rawValue }

        /// DataStore is not set up: no plugin, or a configuration it cannot use.
        public static let configuration = Code(rawValue: "configuration")
        /// A model that does not fit its schema: a missing required field, a value of another type.
        public static let invalidModel = Code(rawValue: "invalidModel")
        /// A predicate, condition or sort that does not fit the model.
        public static let invalidCondition = Code(rawValue: "invalidCondition")
        /// The stored record did not match the condition of a save or delete.
        public static let conditionalSaveFailed = Code(rawValue: "conditionalSaveFailed")
        /// A model type that the plugin's model registration does not contain.
        public static let unregisteredModel = Code(rawValue: "unregisteredModel")
        /// A database file that is not DataStore's, or is corrupted.
        public static let invalidDatabase = Code(rawValue: "invalidDatabase")
        /// An operation that cannot be done in the current state.
        public static let invalidOperation = Code(rawValue: "invalidOperation")
        /// The storage failed: the disk, SQLite, or an error the store did not expect.
        public static let storage = Code(rawValue: "storage")
        /// Sync with the backend failed: it refused a change for good, or sent a record that does
        /// not fit its model.
        public static let sync = Code(rawValue: "sync")
    }

    public let code: Code
    /// What went wrong and what to do.
    public let message: String

    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    /// `error` itself when it is a `DataStoreError`, else a ``Code/storage`` error that
    /// describes it.
    public init(_ error: any Error) {
        if let error = error as? DataStoreError {
            self = error
        } else {
            self.init(.storage, String(describing: error))
        }
    }

    public var description: String { message }

    /// The message, so that `error.localizedDescription` says what went wrong.
    public var errorDescription: String? { message }
}
