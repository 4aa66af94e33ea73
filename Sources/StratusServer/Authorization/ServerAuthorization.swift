import AWSWire
import Foundation

/// How the HTTP endpoint authorizes requests: the default mode, the additional modes, and what
/// each mode checks against.
///
/// ```swift
/// var authorization = ServerAuthorization(defaultMode: .apiKey)
/// authorization.apiKeys = [APIKey(value: "da2-local", expires: nil)]
/// authorization.additionalModes = [.awsIAM]
/// authorization.iamCredentials = [IAMCredential(accessKeyId: "AKIDLOCAL", secretAccessKey: "secret")]
/// ```
public struct ServerAuthorization: Sendable {
    /// The mode of requests that do not say otherwise.
    public var defaultMode: Identity.AuthorizationMode
    /// Further modes the API accepts.
    public var additionalModes: [Identity.AuthorizationMode]
    /// The API keys `x-api-key` may carry.
    public var apiKeys: [APIKey]
    /// The credentials SigV4 signatures are checked against.
    public var iamCredentials: [IAMCredential]
    /// The region signatures must be scoped to.
    public var region: String
    /// How far a signature's date may be from the server's clock.
    public var clockSkew: TimeInterval
    /// The handler of `AWS_LAMBDA` tokens: the token in, a decision out.
    public var lambdaAuthorizer: (@Sendable (String) async throws -> LambdaAuthorization)?
    /// The server's function (``ServerConfiguration/functions``) that decides on `AWS_LAMBDA`
    /// tokens when ``lambdaAuthorizer`` is `nil`: it receives AppSync's authorizer event
    /// (`authorizationToken`, `requestContext` with the request's query, operation name and
    /// variables, `requestHeaders`) and answers `{"isAuthorized": …, "resolverContext": {…}}`.
    public var lambdaAuthorizerFunction: String?
    /// The user pool whose tokens `AMAZON_COGNITO_USER_POOLS` requests carry.
    public var userPool: UserPoolAuthorization?
    /// The provider whose tokens `OPENID_CONNECT` requests carry.
    public var openIDConnect: OIDCAuthorization?
    /// The user pool served beside the API (the local Cognito), whose tokens are trusted
    /// besides ``userPool``'s.
    public var localUserPool: (any TrustedUserPool)?
    /// The identity pool served beside the API (the local Cognito), whose temporary credentials
    /// are trusted besides ``iamCredentials``.
    public var credentialIssuer: (any TrustedCredentialIssuer)?

    public init(
        defaultMode: Identity.AuthorizationMode,
        additionalModes: [Identity.AuthorizationMode] = [],
        apiKeys: [APIKey] = [],
        iamCredentials: [IAMCredential] = [],
        region: String = "us-east-1",
        clockSkew: TimeInterval = 900,
        lambdaAuthorizer: (@Sendable (String) async throws -> LambdaAuthorization)? = nil,
        userPool: UserPoolAuthorization? = nil,
        openIDConnect: OIDCAuthorization? = nil,
        localUserPool: (any TrustedUserPool)? = nil,
        credentialIssuer: (any TrustedCredentialIssuer)? = nil,
        lambdaAuthorizerFunction: String? = nil
    ) {
        self.lambdaAuthorizerFunction = lambdaAuthorizerFunction
        self.defaultMode = defaultMode
        self.additionalModes = additionalModes
        self.apiKeys = apiKeys
        self.iamCredentials = iamCredentials
        self.region = region
        self.clockSkew = clockSkew
        self.lambdaAuthorizer = lambdaAuthorizer
        self.userPool = userPool
        self.openIDConnect = openIDConnect
        self.localUserPool = localUserPool
        self.credentialIssuer = credentialIssuer
    }

    /// Every mode the API accepts.
    public var modes: [Identity.AuthorizationMode] { [defaultMode] + additionalModes }

    /// Whether `AWS_LAMBDA` tokens have something to decide on them.
    public var hasLambdaAuthorizer: Bool { lambdaAuthorizer != nil || lambdaAuthorizerFunction != nil }
}

/// An API key and when it stops working.
public struct APIKey: Sendable, Hashable {
    public var value: String
    /// `nil` for a key that never expires.
    public var expires: Date?

    public init(value: String, expires: Date? = nil) {
        self.value = value
        self.expires = expires
    }
}

/// Credentials a SigV4 signature may be made with: the clients' `AWSCredentials` of `AWSWire`,
/// whose expiration the server does not read.
public typealias IAMCredential = AWSCredentials

/// What a Lambda authorizer decided.
public struct LambdaAuthorization: Sendable, Hashable {
    public var isAuthorized: Bool
    /// What resolvers see as the caller's claims.
    public var resolverContext: JSONObject

    public init(isAuthorized: Bool, resolverContext: JSONObject = [:]) {
        self.isAuthorized = isAuthorized
        self.resolverContext = resolverContext
    }
}

/// A request the endpoint refuses before running it: the HTTP status and AppSync's error body.
struct HTTPRejection: Error, Sendable, Hashable {
    var status: Int
    var errorType: AppSyncErrorType
    var message: String
    /// For a signature that does not match: the canonical request and string to sign the
    /// server computed, which API Gateway's refusal quotes.
    var expectedSigning: (canonicalRequest: String, stringToSign: String)? = nil

    static func == (lhs: HTTPRejection, rhs: HTTPRejection) -> Bool {
        lhs.status == rhs.status && lhs.errorType == rhs.errorType && lhs.message == rhs.message
            && lhs.expectedSigning?.canonicalRequest == rhs.expectedSigning?.canonicalRequest
            && lhs.expectedSigning?.stringToSign == rhs.expectedSigning?.stringToSign
    }

    func hash(into hasher: inout Hasher) {
        hasher.combine(status)
        hasher.combine(errorType)
        hasher.combine(message)
        hasher.combine(expectedSigning?.canonicalRequest)
        hasher.combine(expectedSigning?.stringToSign)
    }

    static let emptyBody = HTTPRejection(
        status: 400,
        errorType: .malformedHttpRequest,
        message: "Request body is empty."
    )
    static let unparsable = HTTPRejection(
        status: 400,
        errorType: .malformedHttpRequest,
        message: "Unable to parse GraphQL query."
    )
    /// A mutation in a `GET` request: a link or a prefetch must not write.
    static let mutationOverGET = HTTPRejection(
        status: 405,
        errorType: .malformedHttpRequest,
        message: "Mutations cannot be sent with GET, which must not change data. Send the mutation with POST."
    )
    static let noAuthorization = HTTPRejection(
        status: 401,
        errorType: .unauthorizedException,
        message: "Valid authorization header not provided."
    )
    static let notAuthorized = HTTPRejection(
        status: 401,
        errorType: .unauthorizedException,
        message: "You are not authorized to make this call."
    )
    static let malformedToken = HTTPRejection(
        status: 401,
        errorType: .unauthorizedException,
        message: "Unable to parse JWT token."
    )

    static let expiredToken = HTTPRejection(
        status: 401,
        errorType: .unauthorizedException,
        message: "Token has expired."
    )

    /// `{"errors":[{"errorType":…,"message":…}]}`.
    var body: JSON {
        AppSyncError.body([AppSyncError(errorType, message)])
    }
}
