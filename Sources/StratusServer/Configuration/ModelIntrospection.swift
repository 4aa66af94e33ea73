import StratusCodegen

/// The `model_introspection` of an `amplify_outputs.json`: the schema's models, enums and
/// non-model types as Amplify's Gen 2 clients read them to build their requests.
///
/// Version 1 of the format: each model with its fields (`type` a scalar's name, or
/// `{"model": …}`, `{"enum": …}`, `{"nonModel": …}`; `isArray`, `isRequired` of the element,
/// `isArrayNullable`, `isReadOnly` for the timestamps, and the `association` of a relation), its
/// `pluralName`, its `model` and `key` attributes and its `primaryKeyInfo`. Authorization rules
/// are not described: the API enforces them.
enum ModelIntrospection {
    static func json(of schema: AnnotatedSchema) -> JSON {
        [
            "version": 1,
            "models": .object(JSONObject(schema.models.map { ($0.name, model($0)) })),
            "enums": .object(
                JSONObject(
                    schema.enums.map {
                        ($0.name, ["name": .string($0.name), "values": .array($0.values.map(JSON.string))])
                    }
                )
            ),
            "nonModels": .object(
                JSONObject(schema.nonModels.map { ($0.name, ["name": .string($0.name), "fields": fields($0.fields)]) })
            ),
        ]
    }

    private static func model(_ model: ModelType) -> JSON {
        var attributes: [JSON] = [["type": "model", "properties": [:]]]
        if model.primaryKey != ["id"] {
            attributes.append(["type": "key", "properties": ["fields": .array(model.primaryKey.map(JSON.string))]])
        }
        for index in model.indexes {
            var properties: JSONObject = [
                "name": .string(index.name), "fields": .array(index.fields.map(JSON.string)),
            ]
            if let queryField = index.queryField { properties["queryField"] = .string(queryField) }
            attributes.append(["type": "key", "properties": .object(properties)])
        }
        return [
            "name": .string(model.name),
            "fields": fields(model.fields),
            "syncable": true,
            "pluralName": .string(model.pluralName),
            "attributes": .array(attributes),
            "primaryKeyInfo": [
                "isCustomPrimaryKey": .bool(model.primaryKey != ["id"]),
                "primaryKeyFieldName": .string(model.primaryKey.first ?? "id"),
                "sortKeyFieldNames": .array(model.primaryKey.dropFirst().map(JSON.string)),
            ],
        ]
    }

    private static func fields(_ fields: [Field]) -> JSON {
        .object(JSONObject(fields.map { ($0.name, field($0)) }))
    }

    private static func field(_ field: Field) -> JSON {
        let type: JSON =
            switch field.type.kind {
            case .model: ["model": .string(field.type.name)]
            case .enumeration: ["enum": .string(field.type.name)]
            case .nonModel: ["nonModel": .string(field.type.name)]
            case .scalar, .customScalar, .interface, .union, .input, .connection: .string(field.type.name)
            }
        var entry: JSONObject = [
            "name": .string(field.name),
            "isArray": .bool(field.type.isList),
            "type": type,
            // The backend sets the read-only fields (the timestamps): clients need not.
            "isRequired": .bool(
                !field.isReadOnly && (field.type.isList ? field.type.isElementRequired : field.type.isRequired)
            ),
            "attributes": [],
        ]
        if field.type.isList { entry["isArrayNullable"] = .bool(!field.type.isRequired) }
        if field.isReadOnly { entry["isReadOnly"] = true }
        if let relation = field.relation {
            var association: JSONObject
            switch relation.kind {
            case .hasMany:
                association = ["connectionType": "HAS_MANY", "associatedWith": strings(relation.associatedFields)]
            case .hasOne:
                association = ["connectionType": "HAS_ONE", "associatedWith": strings(relation.associatedFields)]
                association["targetNames"] = strings(relation.targetNames)
            case .belongsTo:
                association = ["connectionType": "BELONGS_TO", "targetNames": strings(relation.targetNames)]
            }
            entry["association"] = .object(association)
        }
        return .object(entry)
    }

    private static func strings(_ values: [String]) -> JSON {
        .array(values.map(JSON.string))
    }
}
