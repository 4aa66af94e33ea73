import GraphQL
import Testing

@testable import StratusServer

/// Field errors are reported in the order a serial execution meets them, whatever order the
/// concurrent executor recorded them in.
@Suite struct ErrorOrderTests {
    static func error(_ path: [any IndexPathElement], line: Int, column: Int) -> GraphQLError {
        GraphQLError(
            message: path.map { "\($0.indexPathValue)" }.joined(separator: "."),
            locations: [SourceLocation(line: line, column: column)],
            path: IndexPath(path)
        )
    }

    @Test func siblingsByTheirPlaceInTheDocumentAndItemsByIndex() {
        // { getPost { url ups downs } listPosts { items { url downs } } }, recorded scrambled.
        let recorded = [
            Self.error(["listPosts", "items", 10, "url"], line: 1, column: 40),
            Self.error(["getPost", "downs"], line: 1, column: 21),
            Self.error(["listPosts", "items", 2, "downs"], line: 1, column: 44),
            Self.error(["getPost", "url"], line: 1, column: 13),
            Self.error(["listPosts", "items", 2, "url"], line: 1, column: 40),
            Self.error(["getPost", "ups"], line: 1, column: 17),
        ]
        let ordered = ResponseFormatter.inExecutionOrder(recorded).map(\.path.elements)
        #expect(
            ordered == [
                IndexPath(["getPost", "url"]).elements,
                IndexPath(["getPost", "ups"]).elements,
                IndexPath(["getPost", "downs"]).elements,
                IndexPath(["listPosts", "items", 2, "url"]).elements,
                IndexPath(["listPosts", "items", 2, "downs"]).elements,
                IndexPath(["listPosts", "items", 10, "url"]).elements,
            ]
        )
    }

    @Test func aFieldBeforeWhatItHoldsAndEqualOnesAsRecorded() {
        let recorded = [
            Self.error(["getPost", "author", "name"], line: 1, column: 20),
            GraphQLError(message: "second", locations: [SourceLocation(line: 1, column: 3)], path: ["getPost"]),
            GraphQLError(message: "first", locations: [SourceLocation(line: 1, column: 3)], path: ["getPost"]),
        ]
        #expect(
            ResponseFormatter.inExecutionOrder(recorded).map(\.message) == ["second", "first", "getPost.author.name"]
        )
    }
}
