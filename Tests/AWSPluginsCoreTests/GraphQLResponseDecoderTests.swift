import AWSPluginsCore
import Amplify
import Foundation
import Testing

/// success, error, partial and transformation errors, as the client spec defines them.
@Suite struct GraphQLResponseDecoderTests {
    struct Todo: Decodable, Equatable {
        let id: String
        let name: String
    }

    let decoder = GraphQLResponseDecoder()
    let request = GraphQLRequest<Todo>(
        document: "query { getTodo(id: \"1\") { id name } }",
        responseType: Todo.self,
        decodePath: "getTodo"
    )

    func decode<R>(_ body: String, _ request: GraphQLRequest<R>) -> GraphQLResponse<R> {
        decoder.decode(Data(body.utf8), for: request)
    }

    @Test func dataOnlyIsSuccess() throws {
        let response = decode(#"{"data":{"getTodo":{"id":"1","name":"a"}}}"#, request)
        #expect(try response.get() == Todo(id: "1", name: "a"))
    }

    @Test func errorsOnlyIsError() {
        let response = decode(
            #"{"data":null,"errors":[{"message":"boom","errorType":"Unauthorized","path":["getTodo"]}]}"#,
            request
        )
        guard case .failure(.error(let errors)) = response else {
            Issue.record("expected .error, got \(response)")
            return
        }
        #expect(errors.map(\.message) == ["boom"])
        #expect(errors.first?.errorType == "Unauthorized")
        #expect(errors.first?.path == ["getTodo"])
        #expect(errors.first?.extensions?["errorType"] == "Unauthorized")
    }

    @Test func nullFirstValueWithErrorsIsError() {
        let response = decode(
            #"{"data":{"getTodo":null},"errors":[{"message":"Conflict resolver rejects mutation.","errorType":"ConflictUnhandled","data":{"id":"1","_version":4}}]}"#,
            request
        )
        guard case .failure(.error(let errors)) = response else {
            Issue.record("expected .error, got \(response)")
            return
        }
        #expect(errors.first?.data == ["id": "1", "_version": 4])
    }

    @Test func dataAndErrorsIsPartial() {
        let response = decode(
            #"{"data":{"getTodo":{"id":"1","name":"a"},"other":null},"errors":[{"message":"Not Authorized to access other on type Query","errorType":"Unauthorized"}]}"#,
            request
        )
        guard case .failure(.partial(let todo, let errors)) = response else {
            Issue.record("expected .partial, got \(response)")
            return
        }
        #expect(todo == Todo(id: "1", name: "a"))
        #expect(errors.count == 1)
    }

    @Test func undecodableDataIsTransformationError() {
        let body = #"{"data":{"getTodo":{"id":"1"}}}"#
        let response = decode(body, request)
        guard case .failure(.transformationError(let raw, _)) = response else {
            Issue.record("expected .transformationError, got \(response)")
            return
        }
        #expect(raw == body)
    }

    @Test func bodyThatIsNotJSONIsTransformationErrorWithItsText() {
        let response = decode("<html>Bad Gateway</html>", request)
        guard case .failure(.transformationError(let raw, .operationError(let message, _))) = response else {
            Issue.record("expected .transformationError, got \(response)")
            return
        }
        #expect(raw == "<html>Bad Gateway</html>")
        #expect(message == "The response is not a JSON object.")
    }

    @Test func undecodablePayloadIsTransformationErrorWithItsCanonicalText() {
        let payload: JSONValue = ["data": ["getTodo": ["name": "a/b", "id": 1]]]
        guard case .failure(.transformationError(let raw, _)) = decoder.decode(payload, for: request) else {
            Issue.record("expected .transformationError")
            return
        }
        #expect(raw == #"{"data":{"getTodo":{"id":1,"name":"a/b"}}}"#)
    }

    @Test func severalOperationsDecodeAsJSONValue() throws {
        let request = GraphQLRequest<JSONValue>(
            document: "query { a: getTodo(id: \"1\") { id } b: listTodos { items { id } } }",
            responseType: JSONValue.self
        )
        let response = decode(#"{"data":{"a":{"id":"1"},"b":{"items":[{"id":"2"},{"id":"3"}]}}}"#, request)
        let json = try response.get()
        #expect(json.a?.id == "1")
        #expect(json.value(at: "b.items.1.id") == "3")
    }

    @Test func stringResponseIsTheJSONText() throws {
        let request = GraphQLRequest<String>(
            document: "query { getTodo(id: \"1\") { id } }",
            responseType: String.self,
            decodePath: "getTodo"
        )
        #expect(try decode(#"{"data":{"getTodo":{"name":"x","id":"1"}}}"#, request).get() == #"{"id":"1","name":"x"}"#)
    }

    @Test func variablesFromJSONSerializationKeepTheirTypes() throws {
        let object = try JSONSerialization.jsonObject(
            with: Data(#"{"id":"1","count":12345678901,"ratio":0.5,"done":true,"tags":["a"],"none":null}"#.utf8)
        )
        let request = GraphQLRequest<Todo>(document: "q", variables: ["input": object], responseType: Todo.self)
        #expect(
            request.variables == [
                "input": ["id": "1", "count": 12_345_678_901, "ratio": 0.5, "done": true, "tags": ["a"], "none": nil]
            ]
        )
    }
}
