import AWSWire

/// The authorization modes of AppSync: `AWSWire.AWSAuthorizationType`, which the
/// server names too.
///
/// The enum lives in `AWSWire`, below the clients and the server; this name keeps it where apps
/// that import `Amplify` found it.
public typealias AWSAuthorizationType = AWSWire.AWSAuthorizationType
