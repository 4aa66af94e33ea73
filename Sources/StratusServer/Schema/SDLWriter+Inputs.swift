import StratusCodegen

/// The input types of the SDL: filters, conditions, key conditions and mutation inputs.
extension SDLWriter {
    /// The scalars with a `Model<Scalar>Input` of their own, in SDL order.
    static let filterScalars: [Scalar] = [.string, .id, .int, .float, .boolean]

    /// The operators of `Model<Scalar>Input` for filters and conditions.
    static func filterOperators(of scalar: Scalar) -> [String] {
        let type = scalar.rawValue
        let comparisons = ["ne", "eq", "le", "lt", "ge", "gt"].map { "\($0): \(type)" }
        let existence = ["attributeExists: Boolean", "attributeType: ModelAttributeTypes"]
        switch scalar {
        case .boolean:
            return ["ne: \(type)", "eq: \(type)"] + existence
        case .int, .float:
            return comparisons + ["between: [\(type)]"] + existence
        default:
            return comparisons
                + ["contains: \(type)", "notContains: \(type)", "between: [\(type)]", "beginsWith: \(type)"]
                + existence + ["size: ModelSizeInput"]
        }
    }

    /// The operators of `ModelSubscription<Scalar>Input`.
    static func subscriptionOperators(of scalar: Scalar) -> [String] {
        let type = scalar.rawValue
        let comparisons = ["ne", "eq", "le", "lt", "ge", "gt"].map { "\($0): \(type)" }
        let membership = ["in: [\(type)]", "notIn: [\(type)]"]
        switch scalar {
        case .boolean:
            return ["ne: \(type)", "eq: \(type)"]
        case .int, .float:
            return comparisons + ["between: [\(type)]"] + membership
        default:
            return comparisons
                + ["contains: \(type)", "notContains: \(type)", "between: [\(type)]", "beginsWith: \(type)"]
                + membership
        }
    }

    /// The operators of `Model<Scalar>KeyConditionInput`.
    static func keyConditionOperators(of scalar: String) -> [String] {
        if scalar == Scalar.boolean.rawValue { return ["eq: \(scalar)"] }
        let comparisons = ["eq", "le", "lt", "ge", "gt"].map { "\($0): \(scalar)" } + ["between: [\(scalar)]"]
        return [Scalar.int.rawValue, Scalar.float.rawValue].contains(scalar)
            ? comparisons : comparisons + ["beginsWith: \(scalar)"]
    }

    mutating func writeSharedInputs() {
        block("enum ModelSortDirection", ["ASC", "DESC"])
        block(
            "enum ModelAttributeTypes",
            ["binary", "binarySet", "bool", "list", "map", "number", "numberSet", "string", "stringSet", "_null"]
        )
        block(
            "input ModelSizeInput",
            ["ne", "eq", "le", "lt", "ge", "gt"].map { "\($0): Int" } + ["between: [Int]"]
        )
        for scalar in Self.filterScalars {
            block("input Model\(scalar.rawValue)Input", Self.filterOperators(of: scalar))
        }
        for scalar in Self.filterScalars {
            block("input ModelSubscription\(scalar.rawValue)Input", Self.subscriptionOperators(of: scalar))
        }
        var keyScalars = ["String", "ID", "Int", "Float"]
        let usesBoolean = schema.models.contains { model in
            (model.primaryKey.dropFirst() + model.indexes.flatMap { $0.fields.dropFirst() })
                .contains { model.keyConditionScalar(of: $0) == Scalar.boolean.rawValue }
        }
        if usesBoolean { keyScalars.append("Boolean") }
        for scalar in keyScalars {
            block("input Model\(scalar)KeyConditionInput", Self.keyConditionOperators(of: scalar))
        }
    }

    mutating func writeEnumInputs(_ enumType: EnumType) {
        let name = enumType.name
        block("input Model\(name)Input", ["eq: \(name)", "ne: \(name)"])
        block(
            "input Model\(name)ListInput",
            ["eq: [\(name)]", "ne: [\(name)]", "contains: \(name)", "notContains: \(name)"]
        )
    }

    mutating func writeModelInputs(_ model: ModelType) {
        let name = model.name
        let filterable = model.fields.filter(\.isFilterable)
        let sync = detectsConflicts(name) ? ["_deleted: ModelBooleanInput"] : []

        block(
            "input Model\(name)FilterInput",
            filterable.map { "\($0.name): \(Self.filterInput(of: $0))" }
                + ["and: [Model\(name)FilterInput]", "or: [Model\(name)FilterInput]", "not: Model\(name)FilterInput"]
                + sync
        )
        block(
            "input Model\(name)ConditionInput",
            filterable.filter { !model.primaryKey.contains($0.name) }.map { "\($0.name): \(Self.filterInput(of: $0))" }
                + [
                    "and: [Model\(name)ConditionInput]", "or: [Model\(name)ConditionInput]",
                    "not: Model\(name)ConditionInput",
                ] + sync
        )
        let version = detectsConflicts(name) ? ["_version: Int"] : []
        let writable = model.storedFields.filter { !($0.isImplicit && $0.isReadOnly) }
        block(
            "input Create\(name)Input",
            writable.map { field in
                let optional =
                    field.defaultValue != nil || field.isReadOnly
                    || (model.primaryKey == ["id"] && field.name == "id" && field.scalar == .id)
                return "\(field.name): \(inputType(of: field.type, required: field.type.isRequired && !optional))"
            } + version
        )
        block(
            "input Update\(name)Input",
            writable.map { field in
                let required = model.primaryKey.contains(field.name)
                return "\(field.name): \(inputType(of: field.type, required: required))"
            } + version
        )
        block(
            "input Delete\(name)Input",
            model.primaryKey.map { "\($0): \(model.keyType(of: $0))!" } + version
        )
        block(
            "input ModelSubscription\(name)FilterInput",
            filterable.map { "\($0.name): \(Self.subscriptionFilterInput(of: $0))" }
                + ["and: [ModelSubscription\(name)FilterInput]", "or: [ModelSubscription\(name)FilterInput]"] + sync
        )
        for key in model.compositeKeys {
            block(
                "input \(key.typeName)",
                ["eq", "le", "lt", "ge", "gt"].map { "\($0): \(key.keyInputName)" }
                    + ["between: [\(key.keyInputName)]", "beginsWith: \(key.keyInputName)"]
            )
            block("input \(key.keyInputName)", key.fields.map { "\($0): \(model.keyType(of: $0))" })
        }
    }

    /// `ModelStringInput`, `ModelPostStatusInput`, `ModelPostStatusListInput`…
    static func filterInput(of field: Field) -> String {
        if let scalar = field.scalar { return "Model\(scalar.filterScalar.rawValue)Input" }
        return "Model\(field.type.name)\(field.type.isList ? "List" : "")Input"
    }

    /// `ModelSubscriptionStringInput`…; enums filter as strings.
    static func subscriptionFilterInput(of field: Field) -> String {
        "ModelSubscription\((field.scalar?.filterScalar ?? .string).rawValue)Input"
    }
}
