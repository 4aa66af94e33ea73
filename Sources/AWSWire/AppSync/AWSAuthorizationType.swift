/// The authorization modes of AppSync: how the clients authorize a request and how the server
/// says a request was authorized.
///
/// The raw values are AppSync's own, as `amplifyconfiguration.json`, `awsconfiguration.json`
/// and the schema's directives write them:
///
/// ```swift
/// AWSAuthorizationType(rawValue: "AMAZON_COGNITO_USER_POOLS")  // .amazonCognitoUserPools
/// ```
public enum AWSAuthorizationType: String, Sendable, Hashable, Codable, CaseIterable {
    /// No authorization.
    case none = "NONE"
    /// An API key in `x-api-key`.
    case apiKey = "API_KEY"
    /// A SigV4 signature of the `appsync` service (`execute-api` for REST).
    case awsIAM = "AWS_IAM"
    /// A Cognito user pools JWT.
    case amazonCognitoUserPools = "AMAZON_COGNITO_USER_POOLS"
    /// An OpenID Connect JWT.
    case openIDConnect = "OPENID_CONNECT"
    /// A token a Lambda authorizer decides on.
    case function = "AWS_LAMBDA"
}
