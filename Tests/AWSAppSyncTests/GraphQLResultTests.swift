import AWSAppSync
import Foundation
import Testing

/// Reading whole response bodies: data, AppSync's errors and malformed bodies.
@Suite struct GraphQLResultTests {
    @Test func readsDataAndAppSyncErrors() throws {
        let body: JSONValue = [
            "data": [
                "listNotes": [
                    "__typename": "ModelNoteConnection",
                    "items": [["__typename": "Note", "id": "n1", "heading": "Milk", "rating": nil, "status": nil]],
                    "nextToken": "t",
                ]
            ],
            "errors": [
                [
                    "path": ["listNotes", "items", 0, "rating"], "data": nil, "errorType": "Unauthorized",
                    "errorInfo": nil, "locations": [["line": 4, "column": 7, "sourceName": nil]],
                    "message": "Not Authorized to access rating on type Note",
                ],
                ["message": "Conflict", "extensions": ["errorType": "ConflictUnhandled", "data": ["id": "n1"]]],
            ],
        ]
        let result = try GraphQLResult(response: body, operation: ListNotesQuery(withTags: false))
        #expect(result.source == .server)
        #expect(result.data?.listNotes?.nextToken == "t")
        #expect(result.data?.listNotes?.items.first??.rating == nil)
        let errors = try #require(result.errors)
        #expect(errors.count == 2)
        #expect(errors[0].message == "Not Authorized to access rating on type Note")
        #expect(errors[0].errorType == "Unauthorized")
        #expect(errors[0].path == ["listNotes", "items", 0, "rating"])
        #expect(errors[0].locations?.first?.line == 4)
        #expect(errors[0].locations?.first?.column == 7)
        #expect(errors[1].errorType == "ConflictUnhandled")
        #expect(errors[1].data == ["id": "n1"])
    }

    @Test func nullDataWithErrorsHasNoData() throws {
        let body: JSONValue = [
            "data": nil, "errors": [["message": "Unauthorized", "errorType": "UnauthorizedException"]],
        ]
        let result = try GraphQLResult(response: body, operation: ListNotesQuery(withTags: false))
        #expect(result.data == nil)
        #expect(result.errors?.first?.description == "UnauthorizedException: Unauthorized")
    }

    @Test func malformedBodiesAreRefusedWithTheirProblem() throws {
        let neither = #expect(throws: JSONDecodingError.self) {
            try GraphQLResult(response: ["message": "Not found"], operation: ListNotesQuery(withTags: false))
        }
        #expect(
            neither?.description
                == "The response is not a GraphQL response: the body holds neither 'data' nor 'errors'. "
                + "Check the endpoint's URL."
        )
        let noMessage = #expect(throws: JSONDecodingError.self) {
            try GraphQLResult(response: ["errors": [["errorType": "X"]]], operation: ListNotesQuery(withTags: false))
        }
        #expect(noMessage?.path == ["errors", "0", "message"])
        let badData = #expect(throws: JSONDecodingError.self) {
            try GraphQLResult(response: ["data": ["listNotes": 3]], operation: ListNotesQuery(withTags: false))
        }
        #expect(badData?.path == ["listNotes"])
    }
}
