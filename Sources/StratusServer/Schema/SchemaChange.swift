/// A difference between the schema a data directory was written for and the schema it is opened
/// with.
///
/// Additive changes migrate in place when the server opens the directory, keeping every item,
/// tombstone and journal entry: a new model (a new table), a new optional field or one with
/// `@default` (a new column, holding the default in existing items), a field made optional, a
/// new or changed index, new enum values, a new field of an embedded type. Destructive changes
/// would lose or invalidate stored data, and the server refuses to open the directory: a removed
/// model or field, a changed field type, a changed primary key, a new required field without
/// `@default`, a removed enum value. A database written before the store recorded field types
/// cannot tell a changed type from an unchanged one; there a field whose stored values its
/// type cannot read (text in a field now `Int`, a value outside an enum) is refused.
///
/// ```swift
/// do {
///     server = try StratusServer(schema: schema, dataDirectory: directory)
/// } catch {
///     for change in error.refusedSchemaChanges { print(change) }  // removed field 'Post.rating'
/// }
/// ```
public struct SchemaChange: Sendable, Hashable, CustomStringConvertible {
    enum Kind: Sendable, Hashable {
        case modelAdded(String)
        case fieldAdded(model: String, field: String, type: String)
        case fieldMadeOptional(model: String, field: String)
        case indexAdded(model: String, index: String)
        case indexChanged(model: String, index: String)
        case indexRemoved(model: String, index: String)
        case enumValuesAdded(enumeration: String, values: [String])
        case embeddedFieldAdded(type: String, field: String)

        case modelRemoved(String)
        case fieldRemoved(model: String, field: String)
        case fieldTypeChanged(model: String, field: String, from: String, to: String)
        case primaryKeyChanged(model: String, from: [String], to: [String])
        case requiredFieldAdded(model: String, field: String, type: String)
        case enumValueRemoved(enumeration: String, value: String)
        /// A field of a database without recorded types, whose `count` stored values `type` cannot read.
        case storedValuesUnreadable(model: String, field: String, type: String, count: Int)
    }

    let kind: Kind

    /// Whether the change would lose or invalidate stored data, so the server refuses it.
    public var isDestructive: Bool {
        switch kind {
        case .modelAdded, .fieldAdded, .fieldMadeOptional, .indexAdded, .indexChanged, .indexRemoved,
            .enumValuesAdded, .embeddedFieldAdded:
            return false
        case .modelRemoved, .fieldRemoved, .fieldTypeChanged, .primaryKeyChanged, .requiredFieldAdded,
            .enumValueRemoved, .storedValuesUnreadable:
            return true
        }
    }

    /// The change in words: `removed field 'Post.rating'`.
    public var description: String {
        switch kind {
        case .modelAdded(let model):
            return "added model '\(model)'"
        case .fieldAdded(let model, let field, let type):
            return "added field '\(model).\(field)' (\(type))"
        case .fieldMadeOptional(let model, let field):
            return "made field '\(model).\(field)' optional"
        case .indexAdded(let model, let index):
            return "added index '\(index)' on '\(model)'"
        case .indexChanged(let model, let index):
            return "changed index '\(index)' on '\(model)'"
        case .indexRemoved(let model, let index):
            return "removed index '\(index)' on '\(model)'"
        case .enumValuesAdded(let enumeration, let values):
            return "added \(values.map { "'\($0)'" }.joined(separator: ", ")) to enum '\(enumeration)'"
        case .embeddedFieldAdded(let type, let field):
            return "added field '\(type).\(field)' to an embedded type"
        case .modelRemoved(let model):
            return "removed model '\(model)'"
        case .fieldRemoved(let model, let field):
            return "removed field '\(model).\(field)'"
        case .fieldTypeChanged(let model, let field, let from, let to):
            return "changed the type of '\(model).\(field)' from \(from) to \(to)"
        case .primaryKeyChanged(let model, let from, let to):
            return "changed the primary key of '\(model)' from (\(from.joined(separator: ", "))) to "
                + "(\(to.joined(separator: ", ")))"
        case .requiredFieldAdded(let model, let field, let type):
            return "added required field '\(model).\(field)' (\(type)) without @default"
        case .enumValueRemoved(let enumeration, let value):
            return "removed value '\(value)' from enum '\(enumeration)'"
        case .storedValuesUnreadable(let model, let field, let type, let count):
            return "changed the type of '\(model).\(field)' to \(type), which "
                + (count == 1 ? "1 stored value does not fit" : "\(count) stored values do not fit")
        }
    }
}
