/// A model-level attribute: an index or the primary key.
public enum ModelAttribute: Sendable, Hashable {
    /// An index on `fields` (partition key first, then sort keys); `name` is `nil` for the
    /// primary index.
    case index(fields: [String], name: String?)
    /// The primary key: partition key first, then sort keys.
    case primaryKey(fields: [String])

    /// The primary key over the given coding keys.
    public static func primaryKey(fields: [any ModelKey]) -> ModelAttribute {
        .primaryKey(fields: fields.map(\.stringValue))
    }
}
