import GraphQL

/// `input AMPLIFY { globalAuthRule: AuthRule = { allow: public } }`: the header of Amplify's v2
/// starter schemas, which puts the API in sandbox mode.
///
/// The Amplify CLI reads it before transforming (and removes it from the API): the only rule it
/// accepts is `{ allow: public }`, and it then lets the API key create, read, update and delete
/// every model that has no `@auth` of its own, as `@auth(rules: [{ allow: public }])` would.
/// Models with `@auth` keep their rules.
extension SchemaBuilder {
    static let authDocumentation = "https://docs.amplify.aws/cli/graphql/authorization-rules"

    func readAmplifyInput(_ input: InputObjectTypeDefinition) {
        for field in input.fields {
            let here = position(of: field.loc)
            switch field.name.value {
            case "globalAuthRule", "global_auth_rule":
                guard Self.typeText(field.type) == "AuthRule", let value = field.defaultValue,
                    case .object(let members) = ArgumentValue(value), let first = members.first,
                    first.0 == "allow", first.1.text == "public"
                else {
                    report(
                        .invalidArgument,
                        type: "AMPLIFY",
                        field: field.name.value,
                        at: here,
                        "There was a problem with your auth configuration. Learn more about auth here: "
                            + "\(Self.authDocumentation). The global rule Amplify accepts is "
                            + "'globalAuthRule: AuthRule = { allow: public }'; give the models @auth rules for anything else."
                    )
                    continue
                }
                globalAuthRule = AuthRuleDefinition(
                    allow: .public,
                    provider: .apiKey,
                    ownerField: nil,
                    identityClaim: nil,
                    groupClaim: nil,
                    groups: [],
                    groupsField: nil,
                    operations: [.create, .update, .delete, .read]
                )
                warn(
                    type: "AMPLIFY",
                    field: field.name.value,
                    at: here,
                    "the global sandbox rule lets anyone with the API key create, read, update and delete every "
                        + "model without @auth. Give the models @auth rules before production: \(Self.authDocumentation)"
                )
            case "engine":
                report(
                    .unsupported,
                    type: "AMPLIFY",
                    field: "engine",
                    at: here,
                    "AMPLIFY.engine stores the models in a SQL database, which Stratus does not serve: its backend "
                        + "stores models itself. Remove 'engine' to serve this schema."
                )
            default:
                let hint =
                    closestMatch(to: field.name.value, in: ["globalAuthRule"]).map { " Did you mean '\($0)'?" } ?? ""
                report(
                    .unknownArgument,
                    type: "AMPLIFY",
                    field: field.name.value,
                    at: here,
                    "input AMPLIFY has no setting '\(field.name.value)'.\(hint) It takes "
                        + "'globalAuthRule: AuthRule = { allow: public }'."
                )
            }
        }
    }

    /// Gives the global rule to every model without `@auth`.
    func applyGlobalAuthRule(to models: inout [ModelType]) {
        guard let rule = globalAuthRule else { return }
        for index in models.indices {
            let declaration = objectDeclarations.first { $0.name.value == models[index].name }
            let hasAuth = declaration?.directives.contains { $0.name.value == "auth" } ?? false
            guard !hasAuth else { continue }
            models[index].authRules = [rule]
            models[index].usesGlobalAuthRule = true
        }
    }
}
