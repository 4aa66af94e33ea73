import Foundation

/// The `Idempotency-Key` of a mutation as its writes carry it into the store.
///
/// Every write of the mutation records the key in the transaction that writes the item, so a
/// key is recorded exactly when the mutation changed data: a crash can lose the response, never
/// leave a write without its key.
struct IdempotencyClaim: Sendable, Hashable {
    /// Who sent the request (``Identity/idempotencyScope``): one caller cannot replay another's key.
    var scope: String
    /// The key, as the header carried it.
    var key: String
    /// The SHA-256 of the request body, in hexadecimal.
    var digest: String
    /// When the key expires, in epoch milliseconds.
    var expiresAt: Int
    /// This request's run of the mutation: a store whose servers share the keys (PostgreSQL)
    /// refuses a write of the key that another run, on another server, recorded already.
    var run = UUID().uuidString
}

/// What the store holds for an `Idempotency-Key`.
struct IdempotencyRecord: Sendable, Hashable {
    /// The SHA-256 of the body of the request that first used the key, in hexadecimal.
    var digest: String
    /// The response to that request, once it was recorded; `nil` when the mutation wrote but its
    /// response was never recorded (the server stopped in between).
    var response: Response?

    /// A recorded response.
    struct Response: Sendable, Hashable {
        var status: Int
        var body: [UInt8]
    }
}
