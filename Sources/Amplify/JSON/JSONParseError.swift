import AWSWire

/// JSON text that could not be read: `AWSWire.JSONParseError`, which the package's
/// one JSON text reader throws.
///
/// The reader lives in `AWSWire`, below the clients and the server; this name keeps the error
/// where apps that import `Amplify` found it.
public typealias JSONParseError = AWSWire.JSONParseError
