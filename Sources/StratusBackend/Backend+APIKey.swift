import Foundation
import StratusServer

extension Backend {
    /// A new API key, in AppSync's form: `da2-` and 26 lowercase letters and digits.
    public static func newAPIKey() -> String {
        let alphabet = Array("abcdefghijklmnopqrstuvwxyz0123456789")
        return "da2-" + String((0..<26).map { _ in alphabet.randomElement()! })
    }

    /// The data directory's own API key, from its `api-key` file; a new key is made and stored
    /// there when the file has none.
    ///
    /// - Throws: ``BackendError/apiKeyFile(_:)`` when the file cannot be written.
    static func storedAPIKey(in directory: URL) throws(BackendError) -> APIKey {
        let file = directory.appending(path: "api-key")
        if let stored = try? String(contentsOf: file, encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines),
            !stored.isEmpty
        {
            return APIKey(value: stored)
        }
        let key = newAPIKey()
        do {
            // Private to its owner, as the data directory's other files are.
            try PrivateDataDirectory.create(directory)
            try PrivateDataDirectory.replaceFile(at: file, with: Data(key.utf8))
        } catch {
            throw .apiKeyFile(error.description)
        }
        return APIKey(value: key)
    }
}
