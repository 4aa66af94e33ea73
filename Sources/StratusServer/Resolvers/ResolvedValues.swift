import AWSWire
import Foundation
import StratusCodegen

/// A model item handed to GraphQL execution: the field resolvers of the model's type read it.
struct ResolvedItem: Sendable {
    let model: ModelType
    let item: StoredItem
    /// Whether the page that holds the item paid the ``ResolverBudget`` for the relation fields
    /// its selection set asks of the item, which then resolve without counting again.
    var isPaidFor = false
    /// The list the item came in and its place there, for fields that batch their invocations
    /// (``ItemSiblings``); `nil` for an item read alone, or when no field of the model batches.
    var siblings: (list: ItemSiblings, index: Int)? = nil

    /// The item as AppSync hands it to a field's resolver as its `source`: the stored values,
    /// with `__typename` and, under conflict detection, the sync metadata.
    var source: JSON {
        var values = item.values
        values["__typename"] = .string(model.name)
        if let version = item.version { values[TableLayout.versionColumn] = .int(version) }
        if let deleted = item.deleted { values[TableLayout.deletedColumn] = .bool(deleted) }
        if let lastChangedAt = item.lastChangedAt { values[TableLayout.lastChangedAtColumn] = .int(lastChangedAt) }
        return .object(values)
    }

    /// `items`, each knowing its list and place, for fields that batch their invocations.
    static func siblings(_ items: [ResolvedItem]) -> [ResolvedItem] {
        let list = ItemSiblings(items)
        var marked = items
        for index in marked.indices { marked[index].siblings = (list, index) }
        return marked
    }
}

/// A `Model<T>Connection`: a page of items.
struct ResolvedConnection: Sendable {
    var items: [ResolvedItem]
    var nextToken: String?
    var startedAt: Int?
}

/// An embedded non-model value handed to GraphQL execution.
struct EmbeddedValue: Sendable {
    let values: JSONObject
}

/// The value a field resolver hands GraphQL execution for a stored value: strings, numbers and
/// Booleans as themselves, lists as `[(any Sendable)?]`, embedded values as ``EmbeddedValue``,
/// and `AWSJSON` as its JSON text, as AppSync returns it.
///
/// Null list elements are left out: GraphQLSwift 4.3.0 cannot complete a list holding a null
/// (the whole response fails to serialize), so `["a", null]` reads back as `["a"]`.
func outputValue(_ value: JSON?, type: FieldType) -> (any Sendable)? {
    guard let value, !value.isNull else { return nil }
    if type.isList, case .array(let elements) = value {
        var element = type
        element.isList = false
        return outputList(elements, type: element)
    }
    if case .scalar(.awsJSON) = type.kind { return value.text }
    switch value {
    case .null: return nil
    case .bool(let bool): return bool
    case .int(let int): return int
    case .double(let double): return double
    case .string(let string): return string
    case .array(let elements): return outputList(elements, type: type)
    case .object(let object): return EmbeddedValue(values: object)
    }
}

/// The elements of a list output, nulls left out.
private func outputList(_ elements: [JSON], type: FieldType) -> [(any Sendable)?] {
    let kept: [any Sendable] = elements.compactMap { outputValue($0, type: type) }
    return kept.map { $0 as (any Sendable)? }
}

/// The stored form of an input value: `AWSJSON` strings parsed, `Float` as `Double`, embedded
/// values field by field.
func storedValue(_ value: JSON, type: FieldType, in schema: AnnotatedSchema) throws(ResolverError) -> JSON {
    if value.isNull { return .null }
    if type.isList, case .array(let elements) = value {
        var element = type
        element.isList = false
        var result: [JSON] = []
        for item in elements {
            result.append(try storedValue(item, type: element, in: schema))
        }
        return .array(result)
    }
    switch type.kind {
    case .scalar(.awsJSON):
        // Text that does not parse is refused below with AppSync's message.
        guard let text = value.stringValue, let parsed = try? JSON(parsing: text) else {
            throw ResolverError.invalidInput(
                AWSScalarValidation.problem(with: value, as: .awsJSON) ?? "Unable to parse \(value.text) as valid JSON."
            )
        }
        return parsed
    case .scalar(.float):
        return value.doubleValue.map(JSON.double) ?? value
    case .scalar(.int):
        // A whole number written `2.0` is stored as the Int it is, as the executor answers it
        // (request validation refuses a fraction).
        if case .double(let number) = value, let whole = Int32(exactly: number) { return .int(Int(whole)) }
        return value
    case .nonModel:
        guard case .object(let members) = value, let nonModel = schema.nonModel(named: type.name) else {
            return value
        }
        var result = JSONObject()
        for (key, member) in members {
            guard let field = nonModel.field(named: key) else { continue }
            let stored = try storedValue(member, type: field.type, in: schema)
            if !stored.isNull { result[key] = stored }
        }
        return .object(result)
    default:
        return value
    }
}

extension NonModelType {
    func field(named name: String) -> StratusCodegen.Field? {
        fields.first { $0.name == name }
    }
}

/// Instants as AppSync writes them.
enum Timestamp {
    /// Epoch milliseconds.
    static func milliseconds(_ date: Date) -> Int {
        Int((date.timeIntervalSince1970 * 1000).rounded(.down))
    }

    /// `2023-11-14T22:13:20.000Z`: AWSDateTime in UTC with milliseconds.
    static func iso8601(milliseconds: Int) -> String {
        let seconds = milliseconds.floorDivided(by: 1000)
        let millis = milliseconds - seconds * 1000
        let days = seconds.floorDivided(by: 86400)
        let secondOfDay = seconds - days * 86400
        let date = CivilDate(daysSince1970: days)
        func pad(_ value: Int, _ width: Int) -> String {
            let text = String(value)
            return String(repeating: "0", count: max(0, width - text.count)) + text
        }
        return "\(pad(date.year, 4))-\(pad(date.month, 2))-\(pad(date.day, 2))T\(pad(secondOfDay / 3600, 2)):"
            + "\(pad(secondOfDay % 3600 / 60, 2)):\(pad(secondOfDay % 60, 2)).\(pad(millis, 3))Z"
    }
}

extension Int {
    fileprivate func floorDivided(by divisor: Int) -> Int {
        let quotient = self / divisor
        return (self % divisor != 0 && (self < 0) != (divisor < 0)) ? quotient - 1 : quotient
    }
}
