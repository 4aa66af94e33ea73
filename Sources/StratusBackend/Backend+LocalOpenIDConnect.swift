import Foundation
import StratusCognito
import StratusConsole
import StratusServer

extension Backend {
    /// The provider of ``Configuration/localOpenIDConnect``: the configured issuer, client and
    /// time limits, with the store's own key, made on first use: the data directory's
    /// `oidc-signing-key` file, or the database's shared setting (servers sharing the database
    /// sign and accept the same tokens).
    ///
    /// - Throws: ``BackendError/localOpenIDConnect(_:)`` without a configured provider, or when
    ///   the key cannot be read, made or stored.
    static func localOpenIDConnect(
        _ configuration: Configuration,
        authorization: ServerAuthorization,
        server: StratusServer
    ) async throws(BackendError) -> LocalOpenIDConnect {
        guard let configured = authorization.openIDConnect else {
            throw .localOpenIDConnect(
                "A local OpenID Connect provider needs authorization.openIDConnect (its issuer and clientId) "
                    + "to sign tokens for. Configure one, or turn the local provider off."
            )
        }
        let stored: String
        do {
            switch configuration.store {
            case .dataDirectory(let directory):
                stored = try keptText(in: directory, file: "oidc-signing-key") { path in
                    "The local OpenID Connect provider's key file '\(path)' is not UTF-8 text. Delete it to have a new "
                        + "one made."
                } make: {
                    try CognitoSigningKey.make().storedForm
                }
            case .database:
                stored = try await server.sharedSetting(
                    "oidcSigningKey",
                    proposing: try CognitoSigningKey.make().storedForm
                )
            }
        } catch {
            throw .localOpenIDConnect(
                "Cannot read or store the local OpenID Connect provider's key in \(server.storeDescription): \(error)"
            )
        }
        let key: CognitoSigningKey
        do {
            key = try CognitoSigningKey(storedForm: stored)
        } catch {
            throw .localOpenIDConnect(
                "The local OpenID Connect provider's key in \(server.storeDescription) cannot be read (\(error)). "
                    + "Delete it (the data directory's oidc-signing-key file) to have a new one made."
            )
        }
        var provider = configured
        provider.jwks = .json(key.jwks.text)
        return LocalOpenIDConnect(authorization: provider, key: key)
    }
}
