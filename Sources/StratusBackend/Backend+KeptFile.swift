import Foundation
import StratusServer

extension Backend {
    /// A kept file of the data directory that could not be read or written: why, and the fix.
    struct KeptFileFailure: Error, CustomStringConvertible {
        let description: String
    }

    /// The text of the data directory's file `name` (the API key, the console secret, a key),
    /// trimmed; when the file is missing or blank, `make()`'s, written there first, private to
    /// its owner as the directory's other files are. Never read through a link nor from a file
    /// of another user: that user would choose the secret.
    ///
    /// - Throws: ``KeptFileFailure``: `notText(path)` when the file is not UTF-8, or why it
    ///   cannot be read or written.
    static func keptText(
        in directory: URL,
        file name: String,
        notText: (String) -> String,
        make: () throws -> String
    ) throws(KeptFileFailure) -> String {
        let file = directory.appending(path: name)
        let stored: Data?
        do {
            stored = try PrivateDataDirectory.readFile(atPath: file.path(percentEncoded: false))
        } catch {
            // The refusal names the file and the fix.
            throw KeptFileFailure(description: error.description)
        }
        if let data = stored {
            guard let text = String(data: data, encoding: .utf8) else {
                throw KeptFileFailure(description: notText(file.path))
            }
            let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
            if !trimmed.isEmpty { return trimmed }
        }
        let made: String
        do {
            made = try make()
        } catch {
            throw KeptFileFailure(description: "\(error)")
        }
        do {
            _ = try PrivateDataDirectory.create(directory)
            try PrivateDataDirectory.replaceFile(at: file, with: Data(made.utf8))
        } catch {
            throw KeptFileFailure(description: error.description)
        }
        return made
    }
}
