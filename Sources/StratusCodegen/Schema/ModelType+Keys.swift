extension ModelType {
    /// The GraphQL type of a key field, without `!`: its scalar or enum name.
    package func keyType(of fieldName: String) -> String {
        field(named: fieldName)?.type.name ?? Scalar.id.rawValue
    }

    /// The scalar whose `Model<Scalar>KeyConditionInput` compares a sort key field: `ID`, `Int`,
    /// `Float` and `Boolean` keep theirs, `AWSTimestamp` compares as `Int`, and every other
    /// scalar and enum as `String`. The generated statements and the server's API agree on it.
    package func keyConditionScalar(of fieldName: String) -> String {
        guard let field = field(named: fieldName), case .scalar(let scalar) = field.type.kind else {
            return Scalar.string.rawValue
        }
        switch scalar {
        case .id, .int, .float, .boolean: return scalar.rawValue
        case .awsTimestamp: return Scalar.int.rawValue
        case .string, .awsDate, .awsTime, .awsDateTime, .awsEmail, .awsJSON, .awsPhone, .awsURL, .awsIPAddress:
            return Scalar.string.rawValue
        }
    }
}
