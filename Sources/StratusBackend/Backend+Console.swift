import Foundation
import StratusConsole
import StratusServer

extension Backend {
    /// The Stratus Console served at `/console` (``Configuration/console``).
    public struct ConsoleSettings: Sendable, Hashable {
        /// The admin secret; `nil` uses the store's own, made on first use: the data directory's
        /// `console-secret` file, or the database's shared setting.
        public var secret: String?

        public init(secret: String? = nil) {
            self.secret = secret
        }
    }

    /// The admin secret of `settings` on `store`: the one given, or the store's own.
    ///
    /// - Throws: ``BackendError/consoleSecret(_:)`` when the stored one cannot be read or written.
    static func consoleSecret(
        _ settings: ConsoleSettings,
        store: Store,
        server: StratusServer
    ) async throws(BackendError) -> String {
        if let secret = settings.secret {
            guard !secret.isEmpty else {
                throw .consoleSecret("The console secret is empty. Give one, or leave it out to have one made.")
            }
            return secret
        }
        switch store {
        case .dataDirectory(let directory):
            do {
                return try keptText(in: directory, file: "console-secret") { path in
                    "The console secret file '\(path)' is not UTF-8 text. Put the secret in it, or delete it to have "
                        + "a new one made."
                } make: {
                    ConsoleAccess.newSecret()
                }
            } catch {
                throw .consoleSecret(error.description)
            }
        case .database:
            do {
                return try await server.sharedSetting("consoleSecret", proposing: ConsoleAccess.newSecret())
            } catch {
                throw .consoleSecret("Cannot read or store the console secret in \(server.storeDescription): \(error)")
            }
        }
    }
}

extension Backend {
    /// The URL that opens the console of the backend listening at `origin`
    /// (`http://127.0.0.1:20002`), with the secret it trades for a session cookie; `nil` without
    /// a console.
    public func consoleURL(origin: String) -> String? {
        console?.url(origin: origin)
    }
}
