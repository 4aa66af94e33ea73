import Foundation
import Synchronization

/// The last requests the server answered, oldest dropped first: what the console's Requests
/// page shows (`GET /console/api/requests`).
///
/// A server made without one (``StratusHTTPServer/requestHistory`` is `nil`, as with
/// `stratus serve --no-console`) keeps nothing: the endpoints note a request's query, identity
/// and errors only for a history.
///
/// ```swift
/// let history = RequestHistory(capacity: 500)
/// let http = StratusHTTPServer(server: server, authorization: authorization, requestHistory: history)
/// // … later, newest first:
/// for record in history.records { print(record.operationName ?? "-", record.decision) }
/// ```
public final class RequestHistory: Sendable {
    /// How many records a history keeps unless told otherwise.
    public static let defaultCapacity = 500
    /// The largest request body whose query and variables a record keeps, to replay it; a
    /// larger one is recorded without them, so that the history stays small.
    public static let maxKeptBodyBytes = 64 * 1024
    /// The most errors a record keeps of one answer.
    static let maxKeptErrors = 20

    /// How many records the history keeps.
    public let capacity: Int
    private let state: Mutex<Ring>

    private struct Ring {
        var records: [RequestRecord] = []
        /// Where the next record goes once ``records`` is full.
        var oldest = 0
        var lastSequence = 0
    }

    /// A history of the last `capacity` requests.
    public init(capacity: Int = RequestHistory.defaultCapacity) {
        precondition(capacity > 0, "A request history keeps at least one record; it was given \(capacity).")
        self.capacity = capacity
        state = Mutex(Ring())
    }

    /// Keeps `record`, numbered after the last one, dropping the oldest when full.
    func add(_ record: RequestRecord) {
        state.withLock { ring in
            var record = record
            ring.lastSequence += 1
            record.sequence = ring.lastSequence
            if ring.records.count < capacity {
                ring.records.append(record)
            } else {
                ring.records[ring.oldest] = record
                ring.oldest = (ring.oldest + 1) % capacity
            }
        }
    }

    /// The records kept, newest first.
    public var records: [RequestRecord] {
        state.withLock { ring in
            Array((ring.records[ring.oldest...] + ring.records[..<ring.oldest]).reversed())
        }
    }
}

/// One request as ``RequestHistory`` keeps it.
public struct RequestRecord: Sendable, Hashable {
    /// How the request arrived.
    public enum Transport: String, Sendable, Hashable {
        /// `POST /graphql`, `GET /graphql` or a REST API's route.
        case http = "HTTP"
        /// A subscription's `start` message on the real-time WebSocket.
        case realtime = "REALTIME"
    }

    /// What authorization decided.
    public enum Decision: Sendable, Hashable {
        /// The caller was authorized and no `@auth` rule refused a field.
        case allowed
        /// The caller, or some field it asked for, was refused: the reasons the server gave
        /// (its error messages, and the rule that refused a row when it knows one).
        case refused([String])
        /// The request ended before it was authorized (it could not be read, for one).
        case undecided
    }

    /// The record's number in its history, counting from 1.
    public internal(set) var sequence = 0
    /// The id sent back in `x-amzn-RequestId` (HTTP), or the subscription's id (real-time).
    public var requestID: String
    /// When the request arrived.
    public var time: Date
    /// How the request arrived.
    public var transport: Transport
    /// `POST`, `GET`…; `start` for a subscription.
    public var method: String
    /// The request's path: `/graphql`, `/rest/items/keyed`.
    public var path: String
    /// `query`, `mutation` or `subscription`; `nil` when the document could not be read.
    public var operationType: String?
    /// The operation's name, when it has one.
    public var operationName: String?
    /// The mode the caller was authenticated with (`API_KEY`…); `nil` before authentication.
    public var authorizationMode: String?
    /// Who the caller was, as far as the server knows: the user's name, the role, the API key.
    public var identity: String?
    /// What authorization decided.
    public var decision: Decision
    /// The HTTP status; for a subscription, 200 when it started, else 400 (401 when refused).
    public var status: Int
    /// How long the server took to answer.
    public var durationMilliseconds: Double
    /// The resolvers the request ran, as AppSync's `resolverCountLimit` counts them: each root
    /// field, relation field and function run; `nil` when it ran none (refused, unreadable) or
    /// is not a GraphQL request.
    public var resolverCount: Int?
    /// The errors of the answer, as sent (`{"errorType", "message", "path"}`), at most 20.
    public var errors: [JSON]
    /// The request's document and variables, to replay it; `nil` for a body over
    /// ``RequestHistory/maxKeptBodyBytes``.
    public var query: String?
    public var variables: JSONObject?
}

extension RequestRecord.Decision {
    /// The decision of a request that ended with `status` and `errors`, authorized in a mode or
    /// not (`authorized`), with the rules that refused rows (`ruleRefusals`).
    ///
    /// A 401 or 403 refused the caller; an `Unauthorized` error refused a field; the reasons are
    /// the server's own messages, followed by the rules it named.
    static func of(status: Int, errors: [JSON], authorized: Bool, ruleRefusals: [String]) -> Self {
        // A 401 or 403 refused the caller, whatever its errors say (a REST API's `{"message"}`).
        let refusals =
            status == 401 || status == 403
            ? errors
            : errors.filter { error in
                let type = error["errorType"]?.stringValue
                return type == "Unauthorized" || type == "UnauthorizedException"
            }
        if !refusals.isEmpty || !ruleRefusals.isEmpty {
            let messages = refusals.map { error in
                let message = error["message"]?.stringValue ?? ""
                guard let path = error["path"]?.arrayValue, !path.isEmpty else { return message }
                let location = path.map { $0.stringValue ?? $0.intValue.map(String.init) ?? "?" }.joined(separator: ".")
                return "\(message) (at \(location))"
            }
            return .refused(messages + ruleRefusals)
        }
        return authorized ? .allowed : .undecided
    }
}

extension Identity {
    /// Who the caller is, as a request history shows it: the user's name for a JWT, the role or
    /// access key for IAM, the key's first characters for an API key (`apiKey`, its value).
    package func summary(apiKey: String?) -> String {
        func claim(_ name: String) -> String? { claims[name]?.stringValue }
        switch authorizationMode {
        case .apiKey:
            guard let apiKey else { return "API key" }
            return "API key \(apiKey.prefix(8))…"
        case .amazonCognitoUserPools:
            return claim("cognito:username") ?? claim("username") ?? claim("sub") ?? "user"
        case .openIDConnect:
            return claim("username") ?? claim("email") ?? claim("sub") ?? "OIDC user"
        case .awsIAM:
            if let role = claims["cognitoIdentityAuthType"]?.stringValue, let id = claim("cognitoIdentityId") {
                return "identity pool \(role) \(id)"
            }
            return claim("userArn") ?? claim("accessKeyId").map { "access key \($0)" } ?? "IAM"
        case .function:
            return "Lambda authorizer"
        case .none:
            return "anonymous"
        }
    }
}
