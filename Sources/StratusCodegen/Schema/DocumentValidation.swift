import GraphQL

/// GraphQLSwift's validation of an executable document, made safe for any document.
///
/// GraphQLSwift 4.3 keys dictionaries by operations and fragments whose `==` compares their
/// content while their hash does not, so a document holding two identical operations or two
/// identical fragments traps the process during validation (found by the server's fuzzer). Such
/// a document breaks one of three naming rules (unique operation names, a lone anonymous
/// operation, unique fragment names): they are checked first, with GraphQL's own messages, and
/// the other rules run only on a document that keeps them.
///
/// Each error GraphQLSwift makes finds its line and column by scanning the whole document
/// again, so a document with thousands of errors took time in the square of its size: 3,300
/// repeats of `@include(if: true)` on one field, 62 KB, took seconds of CPU. So the rule
/// "Directives Are Unique Per Location" is checked first too, in one pass, and the other rules
/// run first on a copy of the document parsed without locations, whose errors cost nothing to
/// make: a document with more than ``maximumErrors`` errors gets those, without locations, and
/// graphql-js's `Too many validation errors, error limit reached. Validation aborted.`; one
/// with fewer is validated again with locations.
///
/// Validation stops early when the calling task is cancelled (an execution deadline): each rule
/// stops at the next node it visits. The problems are then incomplete, so a caller checks
/// `Task.isCancelled` before it trusts an empty list.
package enum DocumentValidation {
    /// The most errors reported for one document, as graphql-js reports them.
    package static let maximumErrors = 100

    /// The error after the first ``maximumErrors``, in graphql-js's words.
    static let tooManyErrors = "Too many validation errors, error limit reached. Validation aborted."

    /// The problems of `document` under `rules` (GraphQL's specified rules by default); `text`,
    /// the document's text, lets the rules run on a copy without locations first.
    /// `onCancelled` is called once when validation notices the task was cancelled.
    package static func problems(
        of document: Document,
        text: String? = nil,
        schema: GraphQLSchema,
        rules: [@Sendable (ValidationContext) -> Visitor] = specifiedRules,
        onCancelled: (@Sendable () -> Void)? = nil
    ) -> [GraphQLError] {
        let naming = namingProblems(of: document)
        guard naming.isEmpty else { return capped(naming) }
        let directives = directiveProblems(of: document, schema: schema)
        guard directives.isEmpty else { return capped(directives) }
        let noticed = CancellationNotice(onCancelled)
        let rules = rules.map { rule in cancellable(rule, notice: noticed) }
        if let text, let unlocated = try? parse(source: Source(body: text, name: "GraphQL request"), noLocation: true) {
            let found = validate(schema: schema, ast: unlocated, rules: rules)
            if found.isEmpty || Task.isCancelled { return found }
            if found.count > maximumErrors { return capped(found) }
        }
        return capped(validate(schema: schema, ast: document, rules: rules))
    }

    /// The first ``maximumErrors`` of `problems`, and ``tooManyErrors`` after them when there
    /// are more.
    static func capped(_ problems: [GraphQLError]) -> [GraphQLError] {
        guard problems.count > maximumErrors else { return problems }
        return Array(problems.prefix(maximumErrors)) + [GraphQLError(message: tooManyErrors)]
    }

    /// Whether validation noticed the task's cancellation, said once.
    private final class CancellationNotice: @unchecked Sendable {
        // Validation runs on one thread: the visitors are called one after the other.
        private var told = false
        private let tell: (@Sendable () -> Void)?

        init(_ tell: (@Sendable () -> Void)?) {
            self.tell = tell
        }

        func notice() {
            guard !told else { return }
            told = true
            tell?()
        }
    }

    /// `rule`, whose visitor stops (`.break`) at the first node it visits once the task is
    /// cancelled.
    private static func cancellable(
        _ rule: @escaping @Sendable (ValidationContext) -> Visitor,
        notice: CancellationNotice
    ) -> @Sendable (ValidationContext) -> Visitor {
        { context in
            let visitor = rule(context)
            return Visitor(
                enter: { node, key, parent, path, ancestors in
                    guard !Task.isCancelled else {
                        notice.notice()
                        return .break
                    }
                    return visitor.enter(node: node, key: key, parent: parent, path: path, ancestors: ancestors)
                },
                leave: { node, key, parent, path, ancestors in
                    guard !Task.isCancelled else {
                        notice.notice()
                        return .break
                    }
                    return visitor.leave(node: node, key: key, parent: parent, path: path, ancestors: ancestors)
                }
            )
        }
    }

    /// What GraphQL's `UniqueDirectivesPerLocation` rule reports, in document order, in one
    /// pass: `The directive "@include" can only be used once at this location.`, located at the
    /// first use and at the repeat. Directives the schema does not know are the `KnownDirectives`
    /// rule's to report.
    static func directiveProblems(of document: Document, schema: GraphQLSchema) -> [GraphQLError] {
        var unique: Set<String> = []
        for directive in schema.directives where !directive.isRepeatable {
            unique.insert(directive.name)
        }
        var problems: [GraphQLError] = []
        func check(_ directives: [Directive]) {
            guard directives.count > 1, problems.count <= maximumErrors else { return }
            var seen: [String: Directive] = [:]
            for directive in directives where unique.contains(directive.name.value) {
                if let first = seen[directive.name.value] {
                    problems.append(
                        GraphQLError(
                            message:
                                "The directive \"@\(directive.name.value)\" can only be used once at this location.",
                            locations: [first, directive].compactMap(\.loc).map {
                                SourceLocation(line: $0.startToken.line, column: $0.startToken.column)
                            }
                        )
                    )
                } else {
                    seen[directive.name.value] = directive
                }
            }
        }
        func visit(_ selections: [any GraphQL.Selection]) {
            for selection in selections {
                switch selection {
                case let field as GraphQL.Field:
                    check(field.directives)
                    if let set = field.selectionSet { visit(set.selections) }
                case let spread as GraphQL.FragmentSpread:
                    check(spread.directives)
                case let inline as GraphQL.InlineFragment:
                    check(inline.directives)
                    visit(inline.selectionSet.selections)
                default:
                    continue
                }
            }
        }
        for definition in document.definitions {
            if let operation = definition as? OperationDefinition {
                check(operation.directives)
                for variable in operation.variableDefinitions { check(variable.directives) }
                visit(operation.selectionSet.selections)
            } else if let fragment = definition as? FragmentDefinition {
                check(fragment.directives)
                visit(fragment.selectionSet.selections)
            }
        }
        return problems
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
