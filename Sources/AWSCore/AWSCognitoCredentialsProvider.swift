import AWSCognitoAuthPlugin
import AWSWire
import Amplify
import Foundation

/// AWS credentials from a Cognito identity pool, as the AWS Mobile SDK's provider of the same
/// name gives them: the unauthenticated role's for guests, the authenticated role's once a user
/// of a linked user pool signs in.
///
/// It is the Auth plugin's identity pool client (`AWSCognitoAuthPlugin`): credentials are
/// refreshed before they expire, and the identity id is kept between runs.
///
/// ```swift
/// let credentialsProvider = AWSCognitoCredentialsProvider(regionType: .USEast1, identityPoolId: poolId)
/// let appSyncConfig = try AWSAppSyncClientConfiguration(
///     appSyncClientInfo: AWSAppSyncClientInfo(),
///     credentialsProvider: credentialsProvider,
///     databaseURL: databaseURL
/// )
/// ```
public final class AWSCognitoCredentialsProvider: AWSCredentialsProvider {
    /// The identity pool; `nil` for a provider over an Auth category.
    public let identityPoolId: String?
    /// The identity pool's region.
    public let regionType: AWSRegionType
    private let auth: @Sendable () throws -> any AuthCategory

    /// A provider for the identity pool `identityPoolId` in `regionType`, which keeps its
    /// session in a file named after the pool (see `FileAuthSessionStore`).
    public convenience init(regionType: AWSRegionType, identityPoolId: String) {
        self.init(regionType: regionType, identityPoolId: identityPoolId, endpoint: nil)
    }

    /// A provider for the identity pool `identityPoolId`, whose service answers at `endpoint`
    /// (a local Cognito; `nil` for AWS), keeping its session in `sessionStore`.
    public init(
        regionType: AWSRegionType,
        identityPoolId: String,
        endpoint: URL?,
        sessionStore: (any AuthSessionStore)? = nil,
        transport: any HTTPTransport = defaultHTTPTransport()
    ) {
        self.identityPoolId = identityPoolId
        self.regionType = regionType
        guard regionType != .Unknown else {
            let error = AuthError.configuration(
                "AWSCognitoCredentialsProvider was created with the region .Unknown.",
                "Pass the identity pool's region, such as .USEast1."
            )
            auth = { throw error }
            return
        }
        let plugin = AWSCognitoAuthPlugin(
            sessionStore: sessionStore,
            transport: transport,
            hub: HubCategory(),
            configuration: AWSCognitoAuthConfiguration(
                identityPool: .init(poolId: identityPoolId, region: regionType.name, endpoint: endpoint)
            )
        )
        do {
            try plugin.configure(using: nil)
            auth = { plugin }
        } catch {
            let failure = AuthError.configuration(
                "The identity pool '\(identityPoolId)' could not be set up: \(error)",
                "Check that its stored session is readable.",
                error
            )
            auth = { throw failure }
        }
    }

    /// A provider over the identity pool of `auth`, such as `Amplify.Auth` or an
    /// `AWSCognitoAuthPlugin`: guest credentials while signed out, the user's after sign-in.
    public convenience init(auth: any AuthCategory, regionType: AWSRegionType = .Unknown) {
        self.init(regionType: regionType) { auth }
    }

    /// A provider over the Auth category `auth` returns when asked, such as the one an
    /// `AWSMobileClient` is initialized with later.
    package init(regionType: AWSRegionType, auth: @escaping @Sendable () throws -> any AuthCategory) {
        self.identityPoolId = nil
        self.regionType = regionType
        self.auth = auth
    }

    /// Credentials valid now, refreshed when they were about to expire.
    ///
    /// - Throws: `AuthError`: `configuration` when the provider could not be set up, or the
    ///   Auth plugin's error (a service error, no identity pool).
    public func fetchCredentials() async throws -> AWSCredentials {
        try await AWSCognitoAuthCredentialsProvider(auth: auth()).fetchCredentials()
    }

    /// Credentials valid now, as a task.
    public func credentials() -> AWSTask<AWSCredentials> {
        AWSTask { try await self.fetchCredentials() }
    }

    /// The identity id of the guest or the signed-in user, as a task.
    public func getIdentityId() -> AWSTask<String> {
        AWSTask {
            let session = try await self.auth().fetchAuthSession(options: nil)
            guard let cognito = session as? AWSAuthCognitoSession else {
                throw AuthError.configuration(
                    "The Auth plugin's session has no identity id.",
                    "Use AWSCognitoAuthPlugin with an identity pool."
                )
            }
            return try cognito.getIdentityId().get()
        }
    }
}
