import Foundation

/// A failure of the local backend's storage.
public struct StorageError: Error, Sendable, CustomStringConvertible {
    enum Reason: Sendable {
        case unknownModel(String)
        case unknownField(String, model: String)
        case corrupt(String)
        case database(String)
        case incompatibleSchema([SchemaChange])
        case inUse(directory: String, processID: Int32?)
        case invalidDatabaseURL(String, String)
        case unprotected(path: String, kind: String, mode: mode_t, wanted: mode_t, problem: String)
        case unsafeDataFile(path: String, problem: UnsafeDataFile)
    }

    /// Why a data file cannot be trusted: someone else may read or choose what it holds.
    enum UnsafeDataFile: Sendable {
        /// A symbolic link, to the path it names.
        case link(target: String)
        /// A file of another user (`owner`) than the one the server runs as (`server`).
        case foreign(owner: uid_t, server: uid_t)
        /// Not a regular file: a directory, a device, a socket.
        case notRegular
        /// Another file than the one checked before the database opened it.
        case replaced
    }

    let reason: Reason

    /// The destructive schema changes that kept the store from opening, if that is the failure.
    public var refusedSchemaChanges: [SchemaChange] {
        if case .incompatibleSchema(let changes) = reason { return changes }
        return []
    }

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
        case .incompatibleSchema(let changes):
            return "The data directory holds data that the schema's changes would lose or invalidate:\n"
                + changes.map { "  - \($0)\n" }.joined()
                + "Undo these changes, or start with an empty data directory (which deletes the stored data)."
        case .inUse(let directory, let processID):
            let holder = processID.map { "process \($0)" } ?? "another process"
            return "The data directory '\(directory)' is in use by another server (\(holder)). "
                + "Stop that server, or use another data directory."
        case .invalidDatabaseURL(let url, let problem):
            return "The database URL '\(url)' cannot be used: \(problem)."
        case .unprotected(let path, let kind, let mode, let wanted, let problem):
            let fix = PrivateDataDirectory.octal(wanted).dropFirst()
            return "The data \(kind) '\(path)' has mode \(PrivateDataDirectory.octal(mode)), which lets other users "
                + "read it, and its mode cannot be changed (\(problem)). Run chmod \(fix) '\(path)' as its owner, "
                + "or use another data directory."
        case .unsafeDataFile(let path, .link(let target)):
            return "The data file '\(path)' is a symbolic link (to '\(target)'). The server does not follow links in "
                + "its data directory: a link planted while the directory was open to other users would send the "
                + "signing key and the users' data to a file they read. Remove the link (rm '\(path)'), or use "
                + "another data directory."
        case .unsafeDataFile(let path, .foreign(let owner, let server)):
            return "The data file '\(path)' belongs to user \(owner), not to user \(server) that the server runs as: "
                + "another user may have planted it, and reads what is written to it. Remove it (rm '\(path)'), "
                + "or use another data directory."
        case .unsafeDataFile(let path, .notRegular):
            return "The data file '\(path)' is not a regular file. Remove it, or use another data directory."
        case .unsafeDataFile(let path, .replaced):
            return "The data file '\(path)' was replaced while the server opened it: another process writes the "
                + "data directory. Stop it, or use another data directory."
        }
    }

    static func unknownModel(_ name: String) -> StorageError { StorageError(reason: .unknownModel(name)) }
    static func unknownField(_ name: String, model: String) -> StorageError {
        StorageError(reason: .unknownField(name, model: model))
    }
    static func corrupt(_ detail: String) -> StorageError { StorageError(reason: .corrupt(detail)) }
    static func incompatibleSchema(_ changes: [SchemaChange]) -> StorageError {
        StorageError(reason: .incompatibleSchema(changes))
    }
    static func inUse(directory: String, processID: Int32?) -> StorageError {
        StorageError(reason: .inUse(directory: directory, processID: processID))
    }
    static func invalidDatabaseURL(_ url: String, _ problem: String) -> StorageError {
        StorageError(reason: .invalidDatabaseURL(url, problem))
    }
    static func unprotected(_ path: String, kind: String, mode: mode_t, wanted: mode_t, problem: String) -> StorageError
    {
        StorageError(reason: .unprotected(path: path, kind: kind, mode: mode, wanted: wanted, problem: problem))
    }
    static func unsafeDataFile(_ path: String, _ problem: UnsafeDataFile) -> StorageError {
        StorageError(reason: .unsafeDataFile(path: path, problem: problem))
    }
    static func database(_ error: any Error) -> StorageError {
        if let error = error as? StorageError { return error }
        return StorageError(reason: .database(String(describing: error)))
    }
}
