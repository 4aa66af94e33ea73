import HTTPTypes

/// The value of an `Idempotency-Key` header (IETF httpapi draft "The Idempotency-Key HTTP
/// Header Field"), checked: 1 to 255 visible ASCII characters, sent bare (`Idempotency-Key:
/// 8e03978e-40d5`) or as a structured-field string (`Idempotency-Key: "8e03978e-40d5"`).
struct IdempotencyKey: Sendable, Hashable {
    /// The longest key accepted, in characters.
    static let maximumLength = 255

    /// The key, without the quotes of a structured-field string.
    let value: String

    /// Reads the key of a request from the values of its `Idempotency-Key` fields.
    ///
    /// - Throws: a `400` ``HTTPRejection`` naming the problem when there are several fields, or
    ///   the key is empty, too long or not visible ASCII.
    init(fieldValues: [String]) throws(HTTPRejection) {
        guard fieldValues.count == 1 else {
            throw .invalidIdempotencyKey(
                "The request has \(fieldValues.count) Idempotency-Key headers. Send one key per request."
            )
        }
        var text = fieldValues[0]
        if text.first == "\"" {
            guard let unquoted = Self.unquoted(text) else {
                throw .invalidIdempotencyKey(
                    "The Idempotency-Key header starts with a quote but is not a quoted string. "
                        + Self.advice
                )
            }
            text = unquoted
        }
        guard !text.isEmpty else {
            throw .invalidIdempotencyKey("The Idempotency-Key header is empty. " + Self.advice)
        }
        let bytes = Array(text.utf8)
        guard bytes.count <= Self.maximumLength else {
            throw .invalidIdempotencyKey(
                "The Idempotency-Key header is \(bytes.count) bytes long, more than \(Self.maximumLength). "
                    + Self.advice
            )
        }
        if let position = bytes.firstIndex(where: { !(0x21...0x7E).contains($0) }) {
            throw .invalidIdempotencyKey(
                "The Idempotency-Key header has a character that is not visible ASCII at position \(position + 1). "
                    + Self.advice
            )
        }
        value = text
    }

    private static let advice =
        "Send 1 to \(maximumLength) visible ASCII characters, such as a UUID, unique to the mutation."

    /// The content of a structured-field string (`"…"` with `\"` and `\\` escapes), or `nil`.
    private static func unquoted(_ text: String) -> String? {
        var result = ""
        var characters = text.dropFirst().makeIterator()
        while let character = characters.next() {
            switch character {
            case "\\":
                guard let escaped = characters.next(), escaped == "\"" || escaped == "\\" else { return nil }
                result.append(escaped)
            case "\"":
                return characters.next() == nil ? result : nil
            default:
                result.append(character)
            }
        }
        return nil
    }
}

extension HTTPField.Name {
    /// `Idempotency-Key`: makes a mutation run once however often it is sent.
    static let idempotencyKey = HTTPField.Name("Idempotency-Key")!
    /// `Idempotent-Replayed: true` on an answer recorded for an earlier request with the same key.
    static let idempotentReplayed = HTTPField.Name("Idempotent-Replayed")!
}

extension HTTPRejection {
    /// A malformed `Idempotency-Key`.
    static func invalidIdempotencyKey(_ message: String) -> HTTPRejection {
        HTTPRejection(status: 400, errorType: .badRequest, message: message)
    }

    /// A repeat of a mutation whose first request is still running: the IETF draft's `409`.
    static func idempotencyKeyInFlight(_ key: IdempotencyKey) -> HTTPRejection {
        HTTPRejection(
            status: 409,
            errorType: .idempotencyKeyInUse,
            message: "A request with the Idempotency-Key '\(key.value)' is still being processed. "
                + "Send the request again once it has been answered to get its response."
        )
    }

    /// The key of an earlier mutation sent with another body: the IETF draft's `422`.
    static func idempotencyKeyReused(_ key: IdempotencyKey) -> HTTPRejection {
        HTTPRejection(
            status: 422,
            errorType: .idempotencyKeyReused,
            message: "The Idempotency-Key '\(key.value)' was already used for a request with another body. "
                + "Send the same body to get the first response again, or use a new key for a new mutation."
        )
    }
}
