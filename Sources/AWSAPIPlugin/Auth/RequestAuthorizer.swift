import AWSPluginsCore
import AWSWire
import Amplify
import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Authorizes the requests to one API in one mode: the headers of the prelude, and the SigV4
/// signature of `AWS_IAM`.
struct RequestAuthorizer: AppSyncRequestAuthorizer {
    let endpoint: AWSAPIPluginConfiguration.Endpoint
    let mode: AWSAuthorizationType
    /// Whether the request chose `mode`, rather than the API's default.
    let isOverride: Bool
    let apiAuthProviderFactory: SharedAuthProviderFactory
    /// The Auth plugin added to Amplify, which provides user pool tokens the factory does not.
    let authPlugin: (any AuthCategoryPlugin)?
    let credentialsProvider: any AWSCredentialsProvider
    let clock: APIClock

    /// The signing name of the service: `appsync` for GraphQL, `execute-api` for REST.
    var signingService: String {
        endpoint.endpointType == .graphQL ? "appsync" : "execute-api"
    }

    /// Adds the authorization headers of the prelude: `x-api-key`, or a token in
    /// `authorization`; none for `AWS_IAM` (signed last) and `NONE`.
    ///
    /// - Throws: `APIError` when the mode lacks its key or provider, or the provider fails.
    func addAuthorizationHeaders(to request: inout URLRequest) async throws {
        switch mode {
        case .amazonCognitoUserPools, .openIDConnect, .function:
            request.setValue(try await token(), forHTTPHeaderField: "authorization")
        case .none, .awsIAM, .apiKey:
            try checkConfiguration()
            if mode == .apiKey { request.setValue(endpoint.apiKey, forHTTPHeaderField: "x-api-key") }
        }
    }

    /// Checks, without fetching a token or credentials, that the mode has what it needs.
    ///
    /// - Throws: `APIError.invalidConfiguration` naming what is missing.
    func checkConfiguration() throws {
        switch mode {
        case .none:
            return
        case .awsIAM:
            guard endpoint.region != nil else {
                throw APIError.invalidConfiguration(
                    "The request's authMode is AWS_IAM, but the API '\(endpoint.name)' has no region to sign for.",
                    "Set \(endpoint.origin.name(endpoint.origin.region)) in the configuration."
                )
            }
        case .apiKey:
            guard endpoint.apiKey != nil else {
                throw APIError.invalidConfiguration(
                    "The request's authMode is API_KEY, but the API '\(endpoint.name)' has no API key.",
                    "Set \(endpoint.origin.name(endpoint.origin.apiKey)) in the configuration."
                )
            }
        case .amazonCognitoUserPools, .openIDConnect, .function:
            _ = try provider()
        }
    }

    /// The token provider of a mode that sends a token.
    private func provider() throws -> any AmplifyAuthTokenProvider {
        let providerName = mode.tokenProviderName ?? "tokenProvider"
        let provider: (any AmplifyAuthTokenProvider)? =
            switch mode {
            case .amazonCognitoUserPools:
                apiAuthProviderFactory.value.userPoolsAuthProvider()
                    ?? authPlugin.map { AuthPluginUserPoolsProvider(auth: $0) }
            case .openIDConnect: apiAuthProviderFactory.value.oidcAuthProvider()
            case .function: apiAuthProviderFactory.value.functionAuthProvider()
            case .none, .apiKey, .awsIAM: nil
            }
        guard let provider else {
            throw APIError.invalidConfiguration(
                "The \(isOverride ? "request's authMode" : "API '\(endpoint.name)'") is \(mode.rawValue), "
                    + "but the APIAuthProviderFactory returns no \(providerName)().",
                "Create the plugin with AWSAPIPlugin(apiAuthProviderFactory:) and a factory that overrides \(providerName)()."
            )
        }
        return provider
    }

    /// The token of a mode that sends one, from the factory's provider.
    private func token() async throws -> String {
        let providerName = mode.tokenProviderName ?? "tokenProvider"
        let provider = try provider()
        let token: String
        do {
            token = try await provider.getLatestAuthToken()
        } catch let error as APIError {
            throw error
        } catch {
            if let provider = provider as? AuthPluginUserPoolsProvider {
                throw APIError.operationError(
                    "The Auth plugin '\(provider.auth.key)' has no user pool token for \(mode.rawValue): \(sentence: error)",
                    "Sign the user in with Amplify.Auth.signIn(username:password:) first."
                )
            }
            throw APIError.operationError(
                "The \(providerName)() of the APIAuthProviderFactory failed to return a token for \(mode.rawValue): \(sentence: error)",
                "Check that the user is signed in and that getLatestAuthToken() returns their token."
            )
        }
        guard !token.isEmpty else {
            throw APIError.operationError(
                "The \(providerName)() of the APIAuthProviderFactory returned an empty token for \(mode.rawValue).",
                "Return the user's token from getLatestAuthToken()."
            )
        }
        return token
    }

    /// Signs `request` with SigV4 when the mode is `AWS_IAM`; other modes leave it as it is.
    ///
    /// - Throws: `APIError.operationError` when the credentials provider fails.
    func sign(_ request: URLRequest) async throws -> URLRequest {
        guard mode == .awsIAM, let region = endpoint.region else { return request }
        let credentials: AWSCredentials
        do {
            credentials = try await credentialsProvider.fetchCredentials()
        } catch {
            throw APIError.operationError(
                "Cannot sign the request to '\(endpoint.name)' with AWS_IAM: \(sentence: error)",
                "Create the plugin with AWSAPIPlugin(credentialsProvider:), or set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY."
            )
        }
        return SigV4Signer(service: signingService, region: region).sign(
            request,
            credentials: credentials,
            date: clock.now()
        )
    }
}

/// The factory, shared by the plugin's tasks.
///
/// `APIAuthProviderFactory` is an open class that is not `Sendable`, so that the seeds'
/// subclasses compile unchanged; its documentation asks subclasses to be safe to call
/// concurrently, which is what this box relies on.
struct SharedAuthProviderFactory: @unchecked Sendable {
    let value: APIAuthProviderFactory
}

extension String.StringInterpolation {
    /// An error's description ending with a full stop, to end a sentence with it.
    mutating func appendInterpolation(sentence error: any Error) {
        let text = "\(error)"
        appendLiteral(text.hasSuffix(".") ? text : text + ".")
    }
}
