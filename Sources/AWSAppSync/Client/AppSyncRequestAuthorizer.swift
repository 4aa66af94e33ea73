import AWSPluginsCore
import AWSWire
import Amplify
import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

extension AppSyncAuthorization: AppSyncRequestAuthorizer {
    /// Adds the headers of the prelude: `x-api-key`, or a token in `authorization`; nothing for
    /// `AWS_IAM` (signed last, by ``sign(_:)``) and `NONE`.
    ///
    /// - Throws: ``AWSAppSyncClientError``: ``AWSAppSyncClientError/Code/authentication`` when
    ///   a provider fails or returns an empty token, ``AWSAppSyncClientError/Code/requestFailed``
    ///   when it failed because its service could not be reached.
    func addAuthorizationHeaders(to request: inout URLRequest) async throws {
        switch source {
        case .none, .iam:
            return
        case .apiKey(let key):
            request.setValue(key, forHTTPHeaderField: "x-api-key")
        case .apiKeyProvider(let provider):
            request.setValue(provider.getAPIKey(), forHTTPHeaderField: "x-api-key")
        case .token, .lambdaToken:
            request.setValue(try await token(), forHTTPHeaderField: "authorization")
        }
    }

    /// Signs `request` with SigV4 for the `appsync` service in `AWS_IAM`, over its final
    /// headers; other modes leave it as it is.
    ///
    /// - Throws: ``AWSAppSyncClientError`` as ``addAuthorizationHeaders(to:)`` does, when the credentials
    ///   provider fails.
    func sign(_ request: URLRequest) async throws -> URLRequest {
        guard case .iam(let provider) = source else { return request }
        let credentials: AWSCredentials
        do {
            credentials = try await provider.fetchCredentials()
        } catch {
            throw AWSAppSyncClientError(
                Self.failureCode(of: error),
                "The credentialsProvider failed to return credentials to sign the request with AWS_IAM: "
                    + "\(sentence: error) Check the provider's credentials."
            )
        }
        return SigV4Signer(service: "appsync", region: region).sign(request, credentials: credentials)
    }

    /// `request` with the headers and the signature of the mode, as a real-time authorization
    /// object carries them.
    ///
    /// - Throws: ``AWSAppSyncClientError`` as ``addAuthorizationHeaders(to:)`` and ``sign(_:)`` do.
    func authorize(_ request: URLRequest) async throws -> URLRequest {
        var request = request
        try await addAuthorizationHeaders(to: &request)
        return try await sign(request)
    }

    /// The token of a token mode, from its provider (the callback form when it has one).
    private func token() async throws -> String {
        let (token, name): (String?, String)
        do {
            switch source {
            case .token(let provider, let providerName):
                name = providerName
                if let provider = provider as? any AWSCognitoUserPoolsAuthProviderAsync {
                    token = try await Self.callbackToken { provider.getLatestAuthToken($0) }
                } else if let provider = provider as? any AWSOIDCAuthProviderAsync {
                    token = try await Self.callbackToken { provider.getLatestAuthToken($0) }
                } else {
                    token = provider.getLatestAuthToken()
                }
            case .lambdaToken(let provider):
                name = "awsLambdaAuthProvider"
                if let provider = provider as? any AWSLambdaAuthProviderAsync {
                    token = try await Self.callbackToken { provider.getLatestAuthToken($0) }
                } else {
                    token = provider.getLatestAuthToken()
                }
            case .none, .apiKey, .apiKeyProvider, .iam:
                preconditionFailure("token() is only called for token modes")
            }
        } catch {
            throw AWSAppSyncClientError(
                Self.failureCode(of: error),
                "The auth provider of \(mode.rawValue) failed to return a token: \(sentence: error) "
                    + "Check that the user is signed in."
            )
        }
        guard let token, !token.isEmpty else {
            throw AWSAppSyncClientError(
                .authentication,
                "The \(name) returned no token for \(mode.rawValue). Return the signed-in user's token from "
                    + "getLatestAuthToken."
            )
        }
        return token
    }

    /// The code of a provider's failure: ``AWSAppSyncClientError/Code/requestFailed`` when the
    /// provider could not reach its service (a `URLError` or `APIError.networkError` anywhere in
    /// the error's chain, such as a token refresh while offline), which the offline queue retries; otherwise
    /// ``AWSAppSyncClientError/Code/authentication`` (nobody signed in, a refused refresh token),
    /// which retrying will not mend.
    static func failureCode(of error: any Error) -> AWSAppSyncClientError.Code {
        var current: (any Error)? = error
        while let error = current {
            if error is URLError { return .requestFailed }
            if case .networkError? = error as? APIError { return .requestFailed }
            current = (error as? AuthError)?.underlyingError
        }
        return .authentication
    }

    private static func callbackToken(
        _ get: (@escaping (String?, (any Error)?) -> Void) -> Void
    ) async throws -> String? {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<String?, any Error>) in
            let once = ResumeOnce(continuation)
            get { token, error in
                if let error {
                    once.resume(throwing: error)
                } else {
                    once.resume(returning: token)
                }
            }
        }
    }
}

/// Resumes a continuation once: a provider that calls its callback twice is not a crash.
private final class ResumeOnce: @unchecked Sendable {
    private let lock = NSLock()
    private var continuation: CheckedContinuation<String?, any Error>?

    init(_ continuation: CheckedContinuation<String?, any Error>) {
        self.continuation = continuation
    }

    func resume(returning value: String?) {
        take()?.resume(returning: value)
    }

    func resume(throwing error: any Error) {
        take()?.resume(throwing: error)
    }

    private func take() -> CheckedContinuation<String?, any Error>? {
        lock.lock()
        defer { lock.unlock() }
        defer { continuation = nil }
        return continuation
    }
}

/// The real-time authorization objects of an API: the same headers as its HTTP requests, with
/// `host`, as AppSync's real-time protocol carries them.
struct AppSyncClientRealTimeAuthorizer: AppSyncRealTimeAuthorizer {
    let authorization: AppSyncAuthorization

    func connectionAuthorization(graphQLURL: URL) async throws -> [String: String] {
        try await object(url: graphQLURL.appendingPathComponent("connect"), body: "{}")
    }

    func startAuthorization(graphQLURL: URL, data: String) async throws -> [String: String] {
        try await object(url: graphQLURL, body: data)
    }

    private func object(url: URL, body: String) async throws -> [String: String] {
        try await AppSyncRealTimeAuthorizationObject.make(url: url, body: body, mode: authorization.mode, now: Date()) {
            try await authorization.authorize($0)
        }
    }
}
