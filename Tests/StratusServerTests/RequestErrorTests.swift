import Foundation
import StratusCodegen
import StratusServer
import Testing

/// Requests that fail before execution: AppSync's wording and shape, `path: null`.
@Suite struct RequestErrorTests {
    @Test func anUnknownFieldIsAFieldUndefinedValidationError() async throws {
        let server = try await TestServer(postSchema)
        #expect(
            await server.run("{ x }")
                == #"{"data":null,"errors":[{"path":null,"locations":[{"line":1,"column":3,"sourceName":null}],"#
                + #""message":"Validation error of type FieldUndefined: Field 'x' in type 'Query' is undefined @ 'x'"}]}"#
        )
        #expect(
            await server.run("query {\n  post: getPost(id: \"1\") {\n    id\n    nope\n  }\n}")
                == #"{"data":null,"errors":[{"path":null,"locations":[{"line":4,"column":5,"sourceName":null}],"#
                + #""message":"Validation error of type FieldUndefined: Field 'nope' in type 'Post' is undefined "#
                + #"@ 'post/nope'"}]}"#
        )
    }

    @Test func aSyntaxErrorNamesTheOffendingPosition() async throws {
        let server = try await TestServer(postSchema)
        let body = await server.json("{ getPost(id: ) { id } }")
        #expect(body["data"] == JSON.null)
        #expect(body["errors"]?[0]?["path"] == JSON.null)
        #expect(body["errors"]?[0]?["locations"] == [["line": 1, "column": 15, "sourceName": nil]])
        let message = try #require(body["errors"]?[0]?["message"]?.stringValue)
        #expect(message.hasPrefix("Invalid Syntax : "), "\(message)")
        #expect(message.hasSuffix(" at line 1 column 15"), "\(message)")
    }

    @Test func aSchemaWithoutQueriesCannotStart() throws {
        let schema = try SchemaParser().parse("type Post @model(queries: null) { id: ID! }")
        let directory = temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        #expect {
            try StratusServer(schema: schema, dataDirectory: directory)
        } throws: { error in
            String(describing: error).contains("Check that the schema declares at least one query")
        }
    }

    @Test(
        arguments: [
            (#"rating: Int @default(value: "three")"#, "'three' of 'Post.rating' is not a valid Int"),
            (#"ready: Boolean @default(value: "yes")"#, "'yes' of 'Post.ready' is not a valid Boolean"),
            (#"data: AWSJSON @default(value: "{a")"#, "'{a' of 'Post.data' is not a valid AWSJSON"),
            (#"status: Status @default(value: "GONE")"#, "'GONE' of 'Post.status' is not a valid Status"),
            (#"site: AWSURL @default(value: "home")"#, "'home' of 'Post.site' is not a valid AWSURL"),
        ]
    )
    func aDefaultThatIsNotAValueOfItsTypeCannotStart(field: String, problem: String) throws {
        let schema = try SchemaParser().parse("type Post @model { id: ID! \(field) } enum Status { DRAFT }")
        let directory = temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let error = try #require(throws: ServerError.self) {
            try StratusServer(schema: schema, dataDirectory: directory)
        }
        #expect(
            error.description
                == "The @default value \(problem). Give @default a value of the field's type, or remove it."
        )
        #expect(!FileManager.default.fileExists(atPath: directory.path))
    }
}
