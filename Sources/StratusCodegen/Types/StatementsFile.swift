import GraphQL

/// A file of GraphQL statements (operations and fragments) a client sends.
public struct StatementsFile: Sendable, Hashable {
    /// The path the file is reported under.
    public var path: String
    /// The GraphQL text.
    public var text: String

    /// Creates a file.
    public init(path: String, text: String) {
        self.path = path
        self.text = text
    }
}

/// Statements files read as one GraphQL document, so that an operation may use a fragment of
/// another file, with every position mapped back to its file.
struct StatementsDocument {
    let document: Document
    private let files: [StatementsFile]
    /// The first line of each file in the joined text, 1-based.
    private let firstLines: [Int]

    /// Parses `files` and validates them against `schema`.
    ///
    /// - Throws: ``TypesError`` with a syntax error, or every validation error, each at its
    ///   file, line and column.
    init(files: [StatementsFile], schema: APISchema) throws(TypesError) {
        guard !files.isEmpty else {
            throw TypesError(
                file: "statements",
                "No statements were given. Pass --statements with a .graphql file or directory."
            )
        }
        self.files = files
        var firstLines: [Int] = []
        var line = 1
        var text = ""
        for file in files {
            firstLines.append(line)
            let body = file.text.hasSuffix("\n") ? file.text : file.text + "\n"
            text += body
            line += body.reduce(0) { $1 == "\n" ? $0 + 1 : $0 }
        }
        self.firstLines = firstLines
        let parsed: Document
        do {
            parsed = try parse(source: Source(body: text, name: "statements"))
        } catch let error as GraphQLError {
            throw TypesError(firstLines.isEmpty ? [] : [Self.problem(error, firstLines: firstLines, files: files)])
        } catch {
            throw TypesError(file: files[0].path, "The statements cannot be parsed: \(error)")
        }
        let errors = DocumentValidation.problems(of: parsed, schema: schema.schema)
        guard errors.isEmpty else {
            throw TypesError(errors.map { Self.problem($0, firstLines: firstLines, files: files) })
        }
        document = parsed
    }

    /// The problem of `error` at its first location, in its own file.
    private static func problem(_ error: GraphQLError, firstLines: [Int], files: [StatementsFile]) -> TypesError.Problem
    {
        guard let location = error.locations.first else {
            return TypesError.Problem(file: files[0].path, message: error.message)
        }
        let place = place(line: location.line, column: location.column, firstLines: firstLines, files: files)
        return TypesError.Problem(file: place.file, line: place.line, column: place.column, message: error.message)
    }

    private static func place(
        line: Int,
        column: Int,
        firstLines: [Int],
        files: [StatementsFile]
    ) -> (file: String, line: Int, column: Int) {
        let index = firstLines.lastIndex { $0 <= line } ?? 0
        return (files[index].path, line - firstLines[index] + 1, column)
    }

    /// The file, line and column of a node's start.
    func place(of location: Location?) -> (file: String, line: Int?, column: Int?) {
        guard let location else { return (files[0].path, nil, nil) }
        let line = location.startToken.line
        let column = location.startToken.column
        let place = Self.place(line: line, column: column, firstLines: firstLines, files: files)
        return (place.file, place.line, place.column)
    }

    /// A problem at a node.
    func problem(at location: Location?, _ message: String) -> TypesError.Problem {
        let place = place(of: location)
        return TypesError.Problem(file: place.file, line: place.line, column: place.column, message: message)
    }
}
