import Foundation

/// A failure of the local backend's storage.
public struct StorageError: Error, Sendable, CustomStringConvertible {
    enum Reason: Sendable {
        case unknownModel(String)
        case unknownField(String, model: String)
        case corrupt(String)
        case database(String)
    }

    let reason: Reason

    /// A message that says what failed and what to do.
    public var description: String {
        switch reason {
        case .unknownModel(let name):
            return
                "The data store has no table for the model '\(name)'. Restart the server with the schema that declares it."
        case .unknownField(let name, let model):
            return "The model '\(model)' has no stored field '\(name)'."
        case .corrupt(let detail):
            return
                "The data directory holds data that cannot be read (\(detail)). Restore it from a backup or start with an empty data directory."
        case .database(let detail):
            return "The database failed: \(detail)"
        }
    }

    static func unknownModel(_ name: String) -> StorageError { StorageError(reason: .unknownModel(name)) }
    static func unknownField(_ name: String, model: String) -> StorageError {
        StorageError(reason: .unknownField(name, model: model))
    }
    static func corrupt(_ detail: String) -> StorageError { StorageError(reason: .corrupt(detail)) }
    static func database(_ error: any Error) -> StorageError {
        StorageError(reason: .database(String(describing: error)))
    }
}
