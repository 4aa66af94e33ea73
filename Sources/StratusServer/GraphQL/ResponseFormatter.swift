import AWSWire
import Foundation
import GraphQL

/// Writes GraphQL results as AppSync's response bodies.
///
/// Errors of a field carry `path`, `data`, `errorType`, `errorInfo`, `locations` and `message`,
/// in that order, at the top level of the error object; errors of the request as a whole carry
/// `path: null`, `locations` and `message`. Locations are `{"line":…,"column":…,"sourceName":null}`.
enum ResponseFormatter {
    static func body(_ result: GraphQLResult, document: Document?) -> JSON {
        AppSyncError.body(
            inExecutionOrder(result.errors).map { error(for: $0, document: document) },
            data: result.data.flatMap(JSON.init) ?? .null
        )
    }

    /// `errors` in the order a serial execution meets them, as AppSync reports them: fields in
    /// the order the document selects them, list items by index. The executor resolves sibling
    /// fields concurrently, so the order it records them in varies from run to run; the
    /// guide's `result?.errors![0]` must name the first field the document selects.
    static func inExecutionOrder(_ errors: [GraphQLError]) -> [GraphQLError] {
        guard errors.count > 1 else { return errors }
        return errors.enumerated().sorted { left, right in
            let order = executionOrder(left.element, right.element)
            return order == .orderedSame ? left.offset < right.offset : order == .orderedAscending
        }.map(\.element)
    }

    /// Compares two errors' paths up to where they part: two list indexes by number, two
    /// sibling fields by where the errors stand in the document (a field's sub-selections
    /// come after it and before its next sibling).
    private static func executionOrder(_ left: GraphQLError, _ right: GraphQLError) -> ComparisonResult {
        for (leftElement, rightElement) in zip(left.path.elements, right.path.elements)
        where leftElement != rightElement {
            if case .index(let leftIndex) = leftElement, case .index(let rightIndex) = rightElement {
                return leftIndex < rightIndex ? .orderedAscending : .orderedDescending
            }
            return compare(left.locations.first, right.locations.first)
        }
        // One path holds the other (a field and an error under it), or they are equal: the
        // shorter first, as a field fails before what it holds.
        if left.path.elements.count != right.path.elements.count {
            return left.path.elements.count < right.path.elements.count ? .orderedAscending : .orderedDescending
        }
        return .orderedSame
    }

    private static func compare(_ left: SourceLocation?, _ right: SourceLocation?) -> ComparisonResult {
        guard let left, let right else { return .orderedSame }
        if left.line != right.line { return left.line < right.line ? .orderedAscending : .orderedDescending }
        if left.column != right.column { return left.column < right.column ? .orderedAscending : .orderedDescending }
        return .orderedSame
    }

    /// A body for a request that failed before execution: `{"data":null,"errors":[…]}`.
    static func requestFailure(_ problems: [(message: String, locations: [SourceLocation])]) -> JSON {
        AppSyncError.body(
            problems.map { requestError(message: $0.message, locations: $0.locations) },
            data: .null
        )
    }

    static func requestError(message: String, locations: [SourceLocation]) -> AppSyncError {
        AppSyncError(errorType: nil, message: message, shape: .document(locations: locations))
    }

    private static func error(for error: GraphQLError, document: Document?) -> AppSyncError {
        let path = error.path.elements.map { element -> JSON in
            switch element {
            case .index(let index): return .int(index)
            case .key(let key): return .string(key)
            }
        }
        if let resolverError = error.originalError as? ResolverError {
            var appSyncError = fieldError(
                path: path,
                data: resolverError.data,
                errorType: resolverError.errorType,
                errorInfo: resolverError.errorInfo,
                locations: error.locations,
                message: resolverError.message
            )
            appSyncError.reportedErrorType = resolverError.reportedErrorType
            return appSyncError
        }
        if !path.isEmpty {
            return fieldError(
                path: path,
                data: .null,
                errorType: nil,
                errorInfo: .null,
                locations: error.locations,
                message: error.message
            )
        }
        return requestError(message: translate(error, document: document), locations: error.locations)
    }

    static func fieldError(
        path: [JSON],
        data: JSON,
        errorType: AppSyncErrorType?,
        errorInfo: JSON,
        locations: [SourceLocation],
        message: String
    ) -> AppSyncError {
        AppSyncError(
            errorType: errorType,
            message: message,
            shape: .field(path: path, data: data, errorInfo: errorInfo, locations: locations)
        )
    }

    /// Validation messages in graphql-java's words, which AppSync uses.
    private static func translate(_ error: GraphQLError, document: Document?) -> String {
        let message = error.message
        if message.hasPrefix("Cannot query field \""),
            let rest = message.split(separator: "\"", omittingEmptySubsequences: false) as [Substring]?,
            rest.count >= 4
        {
            let field = rest[1]
            let type = rest[3]
            // Past a hundred errors, validation's errors have no location: the field names itself.
            let location = error.locations.first
            let path =
                document.flatMap { document in location.flatMap { fieldPath(in: document, at: $0) } } ?? [String(field)]
            return "Validation error of type FieldUndefined: Field '\(field)' in type '\(type)' is undefined "
                + "@ '\(path.joined(separator: "/"))'"
        }
        return message
    }

    /// The response keys leading to the field at `location`.
    private static func fieldPath(in document: Document, at location: SourceLocation) -> [String]? {
        func search(_ selections: [any Selection], _ path: [String]) -> [String]? {
            for selection in selections {
                switch selection {
                case let field as GraphQL.Field:
                    let here = path + [field.alias?.value ?? field.name.value]
                    if let token = field.loc?.startToken, token.line == location.line, token.column == location.column {
                        return here
                    }
                    if let found = search(field.selectionSet?.selections ?? [], here) { return found }
                case let fragment as InlineFragment:
                    if let found = search(fragment.selectionSet.selections, path) { return found }
                default:
                    continue
                }
            }
            return nil
        }
        for definition in document.definitions {
            if let operation = definition as? OperationDefinition,
                let found = search(operation.selectionSet.selections, [])
            {
                return found
            }
            if let fragment = definition as? FragmentDefinition,
                let found = search(fragment.selectionSet.selections, [])
            {
                return found
            }
        }
        return nil
    }
}
