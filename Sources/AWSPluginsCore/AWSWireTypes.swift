import AWSWire

// The signer, the verifier and the credentials live in `AWSWire`, below the clients and the
// server, which share them. These names keep them where apps found them: code that imports
// `AWSPluginsCore` and names `AWSCredentials` or `SigV4Signer` compiles as it did. Code of this
// package imports `AWSWire` itself.

/// An AWS access key pair, with the session token of temporary credentials:
/// `AWSWire.AWSCredentials`.
public typealias AWSCredentials = AWSWire.AWSCredentials

/// Signs HTTP requests with AWS Signature Version 4: `AWSWire.SigV4Signer`.
public typealias SigV4Signer = AWSWire.SigV4Signer

/// A request to sign or verify with SigV4: `AWSWire.SigV4Request`.
public typealias SigV4Request = AWSWire.SigV4Request

/// Checks SigV4 signatures as AWS does: `AWSWire.SigV4Verifier`.
public typealias SigV4Verifier = AWSWire.SigV4Verifier

/// A signature that does not verify: `AWSWire.SigV4VerificationError`.
public typealias SigV4VerificationError = AWSWire.SigV4VerificationError

/// The `errorType`s of AppSync errors, which ``Amplify/GraphQLError/appSyncErrorType`` reads:
/// `AWSWire.AppSyncErrorType`.
public typealias AppSyncErrorType = AWSWire.AppSyncErrorType
