import Foundation
import StratusCodegen
import Testing

@testable import StratusServer

/// What validating a document may cost: repeated directives are refused in one pass, errors
/// stop at a hundred, and a request's deadline stops its validation.
@Suite struct ValidationCostTests {
    static let repeated = #"The directive \"@include\" can only be used once at this location."#
    static let tooMany = "Too many validation errors, error limit reached. Validation aborted."

    @Test func aRepeatedDirectiveIsRefusedWithGraphQLsError() async throws {
        let server = try await TestServer(postSchema)
        #expect(
            await server.run(#"{ getPost(id: "1") @include(if: true) @include(if: false) { id } }"#)
                == #"{"data":null,"errors":[{"path":null,"locations":[{"line":1,"column":20,"sourceName":null},"#
                + #"{"line":1,"column":39,"sourceName":null}],"message":"\#(Self.repeated)"}]}"#
        )
        // Repeats of different directives, or at different locations, are not repeats.
        #expect(
            await server.run(
                #"{ getPost(id: "1") @include(if: true) @skip(if: false) { id @include(if: true) } }"#
            ) == #"{"data":{"getPost":null}}"#
        )
    }

    /// 3,300 repeats on one field, 62 KB: each of GraphQLSwift's errors scanned the whole
    /// document for its line, which took seconds of CPU.
    @Test func thousandsOfRepeatsGetAHundredErrorsAndTheAbort() async throws {
        let server = try await TestServer(postSchema)
        let query =
            #"{ getPost(id: "1")"# + String(repeating: " @include(if: true)", count: 3_300) + " { id } }"
        #expect(query.utf8.count < HeavyRequestLane.documentBytes)
        let body = await server.json(query)
        let errors = try #require(body["errors"]?.arrayValue)
        #expect(errors.count == 101)
        #expect(
            errors[0]
                == [
                    "path": .null,
                    "locations": [
                        ["line": 1, "column": 20, "sourceName": .null], ["line": 1, "column": 39, "sourceName": .null],
                    ],
                    "message": .string(Self.repeated.replacingOccurrences(of: #"\""#, with: "\"")),
                ]
        )
        #expect(errors[99]["locations"]?[1]?["column"] == .int(20 + 19 * 100))
        #expect(errors[100] == ["path": .null, "locations": .null, "message": .string(Self.tooMany)])
        #expect(body["data"] == .null)
    }

    /// Any rule's errors stop at a hundred: thousands of unknown fields cost what the rules
    /// cost without errors.
    @Test func thousandsOfErrorsGetAHundredAndTheAbort() async throws {
        let server = try await TestServer(postSchema)
        let query = "{ " + (0..<5_000).map { "x\($0)" }.joined(separator: " ") + " }"
        let body = await server.json(query)
        let errors = try #require(body["errors"]?.arrayValue)
        #expect(errors.count == 101)
        #expect(
            errors[0]["message"]
                == "Validation error of type FieldUndefined: Field 'x0' in type 'Query' is undefined @ 'x0'"
        )
        #expect(errors[100]["message"] == .string(Self.tooMany))
        // A few errors keep their locations.
        #expect(
            await server.run("{ x1 x2 }")
                == #"{"data":null,"errors":[{"path":null,"locations":[{"line":1,"column":3,"sourceName":null}],"#
                + #""message":"Validation error of type FieldUndefined: Field 'x1' in type 'Query' is undefined @ 'x1'"},"#
                + #"{"path":null,"locations":[{"line":1,"column":6,"sourceName":null}],"#
                + #""message":"Validation error of type FieldUndefined: Field 'x2' in type 'Query' is undefined @ 'x2'"}]}"#
        )
    }

    /// A large document whose validation is under way at the request's deadline: the
    /// validation stops, and the document is neither refused nor remembered as valid.
    @Test func theDeadlineStopsValidation() async throws {
        let test = try await TestServer(postSchema)
        let server = test.server
        let query = #"{ getPost(id: "1") {"# + String(repeating: " id", count: 15_000) + " } }"
        let work = Task { await server.execute(query: query, identity: .apiKey).text }
        // Cancelled as the deadline cancels it, at once: whatever runs of the request then
        // notices. (A zero deadline's timer could start after the work ended on a busy machine.)
        work.cancel()
        #expect(
            await work.value
                == #"{"data":null,"errors":[{"errorType":"ExecutionTimeout","message":"Execution timed out."}]}"#
        )
        #expect(server.cancelledValidations == 1)
        #expect(server.documentCache[query] == nil)
        // Not cancelled, the same document validates and runs.
        #expect(await server.execute(query: query, identity: .apiKey).text == #"{"data":{"getPost":null}}"#)
        #expect(server.cancelledValidations == 1)
    }
}
