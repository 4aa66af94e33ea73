import Amplify

/// The mutation an outbox event sends: the record's input, the condition, the `_version` it is
/// based on, and its idempotency key.
struct OutgoingMutation {
    /// The record, as the event stores it or as the conflict handler replaced it.
    var json: [String: JSONValue]
    /// The event's condition, as a GraphQL filter.
    let condition: JSONValue?
    /// The backend's `_version` the change is based on, when known.
    var version: Int?
    /// The `Idempotency-Key`: the event's id, then one per retry after a conflict.
    var key: String
    /// The fields the model gained after the event was made: an update leaves out those its
    /// record does not set, instead of clearing them.
    let unknownFields: Set<String>

    /// A `kind` mutation's `input` without the fields the model gained after the event was made
    /// that the record does not set: an update leaves them as they are instead of clearing them.
    func trimming(_ input: JSONValue?, kind: MutationEvent.MutationType) -> JSONValue? {
        guard kind == .update, case .object(var members)? = input else { return input }
        for field in unknownFields where json[field] == nil { members[field] = nil }
        return .object(members)
    }

    /// The mutation of `taken`, as first sent.
    ///
    /// - Throws: ``DataStoreError`` when the stored record is not a JSON object, or
    ///   ``JSONParseError`` when the stored record or condition is not JSON.
    init(_ taken: TakenEvent) throws {
        let event = taken.event
        guard case .object(let members) = try JSONValue(parsing: event.json) else {
            throw DataStoreError(.invalidDatabase, "it is not a JSON object")
        }
        json = members
        condition = try event.graphQLFilterJSON.map { try JSONValue(parsing: $0) }
        version = [taken.version, event.version].compactMap { $0 }.max()
        key = event.id
        unknownFields = taken.unknownFields
    }
}
