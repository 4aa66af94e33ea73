import Foundation
import StratusServer
import Testing

/// Documents GraphQLSwift's validation cannot survive: two identical operations or fragments
/// (its dictionaries hash them by identity and compare them by content, and trap). The server
/// refuses them with GraphQL's own messages before the other rules run.
@Suite struct DocumentValidationTests {
    @Test(arguments: [
        // Found by the fuzzer as a GET query string.
        ("subscription S($f: ID) { onCreatePost { id } } subscription S($f: ID) { onCreatePost { id } }", "S"),
        (#"query Q { getPost(id: "1") { id } } query Q { getPost(id: "1") { id } }"#, "Q"),
    ])
    func twoIdenticalOperationsAreRefusedNotATrap(_ query: String, _ name: String) async throws {
        let server = try await TestServer(postSchema)
        let body = await server.json(query)
        #expect(body["data"] == .null)
        #expect(body["errors"]?.arrayValue?.count == 1)
        #expect(body["errors"]?[0]?["message"] == .string("There can be only one operation named \"\(name)\"."))
    }

    @Test func twoIdenticalAnonymousOperationsAreRefused() async throws {
        let server = try await TestServer(postSchema)
        let body = await server.json(#"{ getPost(id: "1") { id } } { getPost(id: "1") { id } }"#)
        #expect(body["errors"]?.arrayValue?.count == 2)
        #expect(body["errors"]?[1]?["message"] == "This anonymous operation must be the only defined operation.")
    }

    @Test func twoIdenticalFragmentsAreRefused() async throws {
        let server = try await TestServer(postSchema)
        let query = """
            query Q($id: ID!) { getPost(id: $id) { ...F } }
            fragment F on Post { id title }
            fragment F on Post { id title }
            """
        let body = await server.json(query)
        #expect(body["errors"]?.arrayValue?.count == 1)
        #expect(body["errors"]?[0]?["message"] == #"There can be only one fragment named "F"."#)
    }
}
