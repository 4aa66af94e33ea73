/// The coding keys of a generated model: each case names one field.
///
/// Generated code declares `public enum CodingKeys: String, ModelKey` and exposes it as
/// `static let keys = CodingKeys.self`, so `Post.keys.rating` names the `rating` field in schemas
/// and predicates.
public protocol ModelKey: CodingKey, CaseIterable, Sendable {}

extension ModelKey {
    /// The field's name.
    public var fieldName: String { stringValue }
}
