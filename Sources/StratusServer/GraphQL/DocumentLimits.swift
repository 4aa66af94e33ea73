import GraphQL
import StratusCodegen

/// The limits a request's document must keep before it is validated or run: AppSync's query depth
/// and resolver count limits, and the nesting that keeps parsing and validation bounded.
///
/// Parsing, validating and running a document all recurse once per level of nesting, and
/// validating nested list values costs more with every level, so the text is scanned for
/// brackets before it is parsed, and the parsed selections are measured before they are
/// validated.
struct DocumentLimits: Sendable {
    /// The deepest nesting of `{`, `[` and `(` a document may have, whatever the configured
    /// limits: what parsing and validation can recurse through safely.
    static let maximumNesting = 150
    /// The deepest list value inside list values (`[[[1]]]` is 3) a document may have.
    static let maximumListNesting = 8
    /// The deepest nesting of fields a query may have when no query depth limit is configured,
    /// and the highest limit AppSync accepts.
    static let maximumQueryDepth = 75
    /// The most fields a document may select, counting every use of a fragment: what keeps
    /// documents built of fragments that spread each other from taking unbounded time.
    static let maximumSelectedFields = 100_000

    /// The nesting of fields allowed, from 1 to ``maximumQueryDepth``.
    let queryDepth: Int
    /// The resolvers a request may run, from 1 to 10,000.
    let resolverCount: Int

    /// The limits of `configuration`: a query depth limit of 0 (AppSync's "off") or above 75
    /// is 75, and a resolver count limit of 0 or above 10,000 is 10,000, as in AppSync.
    init(_ configuration: ServerConfiguration) {
        let depth = configuration.queryDepthLimit
        queryDepth = (1...Self.maximumQueryDepth).contains(depth) ? depth : Self.maximumQueryDepth
        let count = configuration.resolverCountLimit
        resolverCount = (1...10_000).contains(count) ? count : 10_000
    }

    /// A document over a limit: the message, and where in the text it went over.
    struct Violation: Error {
        let message: String
        let location: SourceLocation?
    }

    // MARK: - Text

    /// Scans the text of a document for nesting deeper than ``maximumNesting`` or list values
    /// nested deeper than ``maximumListNesting``, skipping strings and comments, without
    /// parsing it.
    static func checkNesting(of text: String) -> Violation? {
        var scanner = Scanner(text)
        var open: [UInt8] = []
        // For each open bracket, how many list values it is nested in (itself included).
        var listDepths: [Int] = []
        while let byte = scanner.next() {
            switch byte {
            case UInt8(ascii: "#"):
                while let skipped = scanner.next(), skipped != UInt8(ascii: "\n") {}
            case UInt8(ascii: "\""):
                guard scanner.skipString() else {
                    // GraphQLSwift's lexer reads past the end of such a text and traps.
                    return Violation(
                        message: "Unterminated string: the document ends inside an escape sequence. "
                            + "Complete the escape (\\uXXXX has four hexadecimal digits) and close the string.",
                        location: scanner.location
                    )
                }
            case UInt8(ascii: "{"), UInt8(ascii: "("), UInt8(ascii: "["):
                let enclosing = open.last == UInt8(ascii: "[") ? listDepths.last ?? 0 : 0
                let lists = enclosing + (byte == UInt8(ascii: "[") ? 1 : 0)
                open.append(byte)
                listDepths.append(lists)
                if lists > maximumListNesting {
                    return Violation(
                        message: "The document nests list values more than \(maximumListNesting) levels deep, "
                            + "the most a document may. Send flatter list values.",
                        location: scanner.location
                    )
                }
                if open.count > maximumNesting {
                    return Violation(
                        message: "The document nests selections, arguments and values more than "
                            + "\(maximumNesting) levels deep, the most a document may. Send a flatter document.",
                        location: scanner.location
                    )
                }
            case UInt8(ascii: "}"), UInt8(ascii: ")"), UInt8(ascii: "]"):
                // Unbalanced text is the parser's to report.
                if !open.isEmpty {
                    open.removeLast()
                    listDepths.removeLast()
                }
            default:
                break
            }
        }
        return nil
    }

    /// The bytes of a document's text, read once, with the line and column of the last one.
    private struct Scanner {
        private let bytes: [UInt8]
        private var index = 0
        private var line = 1
        private var column = 0

        init(_ text: String) {
            bytes = Array(text.utf8)
        }

        /// Where the byte last read is.
        var location: SourceLocation { SourceLocation(line: line, column: column) }

        mutating func next() -> UInt8? {
            guard index < bytes.count else { return nil }
            let byte = bytes[index]
            index += 1
            if byte == UInt8(ascii: "\n") {
                line += 1
                column = 0
            } else if byte & 0xC0 != 0x80 {
                column += 1
            }
            return byte
        }

        private func peek(_ offset: Int = 0) -> UInt8? {
            index + offset < bytes.count ? bytes[index + offset] : nil
        }

        /// Skips a string whose opening quote was read: a block string (`"""…"""`) or a string
        /// with escapes, ending at its closing quote or at the end of the line. `false` when the
        /// text ends inside an escape sequence (`\`, or `\u` with fewer than four digits).
        mutating func skipString() -> Bool {
            let quote = UInt8(ascii: "\"")
            let backslash = UInt8(ascii: "\\")
            if peek() == quote, peek(1) == quote {
                _ = next()
                _ = next()
                // A block string ends at three quotes not preceded by a backslash.
                var quotes = 0
                while let byte = next() {
                    if byte == quote {
                        quotes += 1
                        if quotes == 3 { return true }
                    } else {
                        quotes = 0
                        if byte == backslash, next() == nil { return false }
                    }
                }
                return true
            }
            while let byte = next() {
                if byte == quote || byte == UInt8(ascii: "\n") { return true }
                if byte == backslash {
                    guard let escaped = next() else { return false }
                    if escaped == UInt8(ascii: "u"), peek(3) == nil { return false }
                }
            }
            return true
        }
    }

    // MARK: - Selections

    /// Measures the operations of a parsed document: the nesting of their fields against
    /// ``queryDepth``, and the resolvers they would run at least once against ``resolverCount``.
    /// Fragments count where they are spread.
    func check(_ document: Document, schema: GraphQLSchema, api: ServerAPI) -> Violation? {
        var fragments: [String: FragmentDefinition] = [:]
        for case let fragment as FragmentDefinition in document.definitions {
            fragments[fragment.name.value] = fragment
        }
        var measure = Measure(limits: self, schema: schema, api: api, fragments: fragments)
        do {
            for case let operation as OperationDefinition in document.definitions {
                let root: GraphQLObjectType? =
                    switch operation.operation {
                    case .query: schema.queryType
                    case .mutation: schema.mutationType
                    case .subscription: schema.subscriptionType
                    }
                try measure.visit(operation.selectionSet.selections, parent: root, depth: 1, isRoot: true)
            }
        } catch {
            return error
        }
        return nil
    }

    /// A walk over the selections of a document, counting as it goes.
    private struct Measure {
        let limits: DocumentLimits
        let schema: GraphQLSchema
        let api: ServerAPI
        let fragments: [String: FragmentDefinition]
        var resolvers = 0
        var fields = 0
        /// The fragments being walked, which a fragment spreading itself does not enter again
        /// (validation reports the cycle).
        var spreading: Set<String> = []

        mutating func visit(
            _ selections: [any Selection],
            parent: GraphQLObjectType?,
            depth: Int,
            isRoot: Bool
        ) throws(Violation) {
            for selection in selections {
                switch selection {
                case let field as GraphQL.Field:
                    try visit(field, parent: parent, depth: depth, isRoot: isRoot)
                case let inline as InlineFragment:
                    let type = inline.typeCondition.flatMap {
                        schema.getType(name: $0.name.value) as? GraphQLObjectType
                    }
                    try visit(inline.selectionSet.selections, parent: type ?? parent, depth: depth, isRoot: isRoot)
                case let spread as FragmentSpread:
                    let name = spread.name.value
                    guard let fragment = fragments[name], !spreading.contains(name) else { continue }
                    spreading.insert(name)
                    defer { spreading.remove(name) }
                    let type = schema.getType(name: fragment.typeCondition.name.value) as? GraphQLObjectType
                    try visit(fragment.selectionSet.selections, parent: type ?? parent, depth: depth, isRoot: isRoot)
                default:
                    continue
                }
            }
        }

        private mutating func visit(
            _ field: GraphQL.Field,
            parent: GraphQLObjectType?,
            depth: Int,
            isRoot: Bool
        ) throws(Violation) {
            let location = field.loc.map { SourceLocation(line: $0.startToken.line, column: $0.startToken.column) }
            if depth > limits.queryDepth {
                throw Violation(
                    message: "maximum query depth exceeded \(depth) > \(limits.queryDepth). "
                        + "Select fewer levels of nested fields.",
                    location: location
                )
            }
            fields += 1
            if fields > DocumentLimits.maximumSelectedFields {
                throw Violation(
                    message: "The document selects more than \(DocumentLimits.maximumSelectedFields) fields, "
                        + "counting each use of a fragment. Select fewer fields.",
                    location: location
                )
            }
            let name = field.name.value
            // A field the type lacks counts without a definition; validation names it.
            let definition = parent.flatMap { try? $0.fields()[name] }
            if isRoot || parent.map({ hasResolver(type: $0.name, field: name) }) == true {
                resolvers += 1
                if resolvers > limits.resolverCount {
                    throw Violation(
                        message: "maximum resolver count exceeded \(resolvers) > \(limits.resolverCount). "
                            + "Select fewer root fields, aliases and related models.",
                        location: location
                    )
                }
            }
            guard let selections = field.selectionSet?.selections else { return }
            let type = definition.flatMap { getNamedType(type: $0.type) as? GraphQLObjectType }
            try visit(selections, parent: type, depth: depth + 1, isRoot: false)
        }

        /// Whether a field runs a resolver of its own: a relation of a model (root fields count
        /// apart); the model's other fields, connections' and embedded types' fields read the
        /// value their parent resolved.
        private func hasResolver(type: String, field: String) -> Bool {
            api.schema.model(named: type)?.field(named: field)?.relation != nil
        }
    }
}
