import GraphQL

/// GraphQLSwift's validation of an executable document, made safe for any document.
///
/// GraphQLSwift 4.3 keys dictionaries by operations and fragments whose `==` compares their
/// content while their hash does not, so a document holding two identical operations or two
/// identical fragments traps the process during validation (found by the server's fuzzer). Such
/// a document breaks one of three naming rules (unique operation names, a lone anonymous
/// operation, unique fragment names): they are checked first, with GraphQL's own messages, and
/// the other rules run only on a document that keeps them.
package enum DocumentValidation {
    /// The problems of `document` under `rules` (GraphQL's specified rules by default).
    package static func problems(
        of document: Document,
        schema: GraphQLSchema,
        rules: [@Sendable (ValidationContext) -> Visitor] = specifiedRules
    ) -> [GraphQLError] {
        let naming = namingProblems(of: document)
        guard naming.isEmpty else { return naming }
        return validate(schema: schema, ast: document, rules: rules)
    }

    /// What GraphQL's `UniqueOperationNames`, `LoneAnonymousOperation` and `UniqueFragmentNames`
    /// rules report, in document order.
    static func namingProblems(of document: Document) -> [GraphQLError] {
        let operationCount = document.definitions.count { $0 is OperationDefinition }
        var operations: [String: Name] = [:]
        var fragments: [String: Name] = [:]
        var problems: [GraphQLError] = []
        for definition in document.definitions {
            if let operation = definition as? OperationDefinition {
                if let name = operation.name {
                    if let known = operations[name.value] {
                        problems.append(
                            GraphQLError(
                                message: "There can be only one operation named \"\(name.value)\".",
                                nodes: [known, name]
                            )
                        )
                    } else {
                        operations[name.value] = name
                    }
                } else if operationCount > 1 {
                    problems.append(
                        GraphQLError(
                            message: "This anonymous operation must be the only defined operation.",
                            nodes: [operation]
                        )
                    )
                }
            } else if let fragment = definition as? FragmentDefinition {
                let name = fragment.name
                if let known = fragments[name.value] {
                    problems.append(
                        GraphQLError(
                            message: "There can be only one fragment named \"\(name.value)\".",
                            nodes: [known, name]
                        )
                    )
                } else {
                    fragments[name.value] = name
                }
            }
        }
        return problems
    }
}
