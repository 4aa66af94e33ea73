import Foundation

/// The credentials of a live connection: a user pool's or an OIDC provider's token expires, and
/// sign-out (`GlobalSignOut`, `RevokeToken`) revokes it; identity-pool credentials expire, and
/// die with their user; while the WebSocket they opened could stay open for days and keep
/// hearing events.
///
/// A connection whose own token no longer holds gets `connection_error` with the refusal a new
/// connection with that token would get (`Token has expired.`, `You are not authorized to make
/// this call.`) and is closed; a subscription started with a token of its own that no longer
/// holds gets an `error` and stops. Tokens are checked when a `start` relies on the
/// connection's, at their `exp`, and every ``RealtimeLimits/credentialCheckInterval`` for
/// revocation: one timer per connection, nothing per event.
extension RealtimeEndpoint {
    /// Checks `token` again as a request carrying it would be: `nil` when it still holds.
    func check(_ token: RealtimeToken) async -> HTTPRejection? {
        switch token.kind {
        case .jwt(let jwt):
            do throws(HTTPRejection) {
                _ = try await authorizer.identity(
                    for: RequestAuthenticator.SignedParts(
                        path: "/graphql",
                        headers: ["authorization": .string(jwt)],
                        body: Data()
                    )
                )
                return nil
            } catch {
                return error
            }
        case .issuedCredentials(let accessKeyId):
            guard await authorizer.issuedCredentialsHold(accessKeyId) else {
                return HTTPRejection(
                    status: 403,
                    errorType: .unrecognizedClient,
                    message: "The security token included in the request is invalid."
                )
            }
            return nil
        }
    }

    /// Sends `connection_error` with `rejection` and closes the connection.
    func end(_ connection: RealtimeConnection, refusing rejection: HTTPRejection) {
        connection.send(["type": "connection_error", "payload": RealtimeError(connectionRefusal: rejection).payload])
        connection.close(code: 1000, reason: "Unauthorized")
    }

    /// Checks the tokens of `connection` (its own, `connectionToken`, and those its subscriptions,
    /// hand-written ones in `handWritten` too, started with) at their expiry and every ``RealtimeLimits/credentialCheckInterval``, until
    /// the task is cancelled or the connection's own token fails.
    func watchCredentials(
        of connection: RealtimeConnection,
        connectionToken: RealtimeToken?,
        fanout: RealtimeFanout,
        handWritten: HandWrittenStarts
    ) async {
        while !Task.isCancelled {
            let subscriptions = connection.subscriptionTokens + handWritten.credentials
            let tokens = [connectionToken].compactMap { $0 } + subscriptions.map(\.token)
            var wait = limits.credentialCheckInterval
            let now = authorizer.clock()
            for expiry in tokens.compactMap(\.expiresAt) {
                let left = Duration.milliseconds(Int64(max(0, expiry.timeIntervalSince(now)) * 1000) + 1)
                wait = min(wait, left)
            }
            do {
                try await Task.sleep(for: wait)
            } catch {
                return
            }
            if let connectionToken, let rejection = await check(connectionToken) {
                end(connection, refusing: rejection)
                return
            }
            for (id, token) in connection.subscriptionTokens {
                guard let rejection = await check(token) else { continue }
                let payload = RealtimeError(connectionRefusal: rejection).payload
                if let ended = connection.end(subscription: id, payload: payload) {
                    fanout.unsubscribe(connection, from: ended.topic)
                }
            }
            for (id, token) in handWritten.credentials {
                guard let rejection = await check(token) else { continue }
                _ = handWritten.end(
                    id: id,
                    payload: RealtimeError(connectionRefusal: rejection).payload,
                    on: connection
                )
            }
        }
    }
}

extension RealtimeError {
    /// The error of a connection or subscription whose credentials are refused: the rejection's
    /// type, message and HTTP status.
    init(connectionRefusal rejection: HTTPRejection) {
        self.init(errorType: rejection.errorType, message: rejection.message, errorCode: rejection.status)
    }
}
