import AWSPluginsCore
import AWSWire
import Amplify

/// The credentials of `AWS_IAM` from the Auth plugin added to Amplify: an identity pool's
/// guest credentials while nobody is signed in, the signed-in user's after.
struct AuthPluginCredentialsProvider: AWSCredentialsProvider {
    let auth: any AuthCategoryPlugin

    func fetchCredentials() async throws -> AWSCredentials {
        try await auth.sessionCredentials(
            fix: "Use an Auth plugin with an identity pool, or create AWSAPIPlugin(credentialsProvider:)."
        )
    }
}

/// The token of `AMAZON_COGNITO_USER_POOLS` when the factory provides none: the signed-in
/// user's access token from the Auth plugin added to Amplify.
struct AuthPluginUserPoolsProvider: AmplifyUserPoolsAuthProvider {
    let auth: any AuthCategoryPlugin

    func getLatestAuthToken() async throws -> String {
        try await auth.sessionAccessToken(
            fix:
                "Use an Auth plugin with a user pool, or override userPoolsAuthProvider() in an APIAuthProviderFactory."
        )
    }
}
