import Foundation

/// One fuzzer input, read as the channel it is sent through and the bytes it sends.
///
/// The first byte picks the channel (its value modulo the number of channels), the rest is the
/// payload: a POST body, a GET query string, raw bytes on a fresh TCP connection, or one
/// real-time message after `connection_init`.
enum FuzzInput {
    /// `POST /graphql` with a valid API key and this body.
    case post(Data)
    /// `GET /graphql?` followed by these bytes, percent-encoded where a request line needs it.
    case get(Data)
    /// These bytes, as they are, on a new connection that is then half-closed.
    case raw(Data)
    /// A real-time connection authorized with the API key: `connection_init`, then this text.
    case realtime(Data)

    init?(_ bytes: Data) {
        guard let selector = bytes.first else { return nil }
        let payload = Data(bytes.dropFirst())
        switch selector % 4 {
        case 0: self = .post(payload)
        case 1: self = .get(payload)
        case 2: self = .raw(payload)
        default: self = .realtime(payload)
        }
    }

    /// The input as a corpus file holds it.
    var bytes: Data {
        switch self {
        case .post(let data): Data([0]) + data
        case .get(let data): Data([1]) + data
        case .raw(let data): Data([2]) + data
        case .realtime(let data): Data([3]) + data
        }
    }
}
