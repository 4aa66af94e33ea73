import Foundation
import StratusServer

extension Backend {
    /// A new API key, in AppSync's form: `da2-` and 26 lowercase letters and digits.
    public static func newAPIKey() -> String {
        let alphabet = Array("abcdefghijklmnopqrstuvwxyz0123456789")
        return "da2-" + String((0..<26).map { _ in alphabet.randomElement()! })
    }

    /// The data directory's own API key, from its `api-key` file; a new key is made and stored
    /// there when the file is missing or empty.
    ///
    /// - Throws: ``BackendError/apiKeyFile(_:)`` when the file cannot be read, is a symbolic link
    ///   or another user's, is not text, or cannot be written: a key clients hold is never replaced
    ///   with another.
    static func storedAPIKey(in directory: URL) throws(BackendError) -> APIKey {
        do {
            let key = try keptText(in: directory, file: "api-key") { path in
                "The API key file '\(path)' is not UTF-8 text. Put the key in it, or delete it to have a new key made."
            } make: {
                newAPIKey()
            }
            return APIKey(value: key)
        } catch {
            throw .apiKeyFile(error.description)
        }
    }
}

extension Backend {
    /// Deletes the data directory with every item, tombstone and the sync journal, as
    /// ``StratusServer/deleteData(in:)`` does, but keeps its API key unless `keepingAPIKey` is
    /// `false`: clients that hold the key keep working against the emptied store.
    ///
    /// - Returns: whether a key was kept (`false` when the directory had none).
    /// - Throws: ``BackendError/store(_:)`` when a server has the directory open or it cannot be
    ///   deleted (then nothing is deleted); ``BackendError/apiKeyFile(_:)`` when the key cannot
    ///   be read before, or written back after.
    @discardableResult
    public static func deleteData(in directory: URL, keepingAPIKey: Bool) throws(BackendError) -> Bool {
        let file = directory.appending(path: "api-key")
        var key: Data?
        if keepingAPIKey {
            do {
                key = try PrivateDataDirectory.readFile(atPath: file.path(percentEncoded: false))
            } catch {
                throw .apiKeyFile(error.description)
            }
        }
        do {
            try StratusServer.deleteData(in: directory)
        } catch {
            throw .store(error)
        }
        guard let key, !key.isEmpty else { return false }
        do {
            try PrivateDataDirectory.create(directory)
            try PrivateDataDirectory.replaceFile(at: file, with: key)
        } catch {
            throw .apiKeyFile(error.description)
        }
        return true
    }
}
