import AWSPluginsCore
import Amplify
import Foundation
import Synchronization
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The rules every client shares on the AppSync wire: which statuses are retried, how
/// `Retry-After` reads, how AppSync's errors read and what type each has, and the order of the
/// steps of a request. The API plugin, the AppSync client's queue and DataStore's sync all go
/// through these, so they are tested once, here.
@Suite struct AppSyncTransportTests {
    /// Tue, 14 Nov 2023 22:13:20 GMT.
    static let now = Date(timeIntervalSince1970: 1_700_000_000)

    // MARK: - Which statuses are retried

    @Test(arguments: [
        (408, false, true), (409, false, false), (409, true, true), (429, false, true), (500, false, true),
        (501, false, false), (501, true, false), (502, false, true), (503, false, true), (504, false, true),
        (505, false, false), (400, true, false), (401, true, false), (403, false, false), (404, false, false),
        (422, true, false), (200, false, false),
    ])
    func theRetryRuleAnswersEachStatusOnce(status: Int, sentWithIdempotencyKey: Bool, retryable: Bool) {
        #expect(
            RetryRule.isRetryable(statusCode: status, sentWithIdempotencyKey: sentWithIdempotencyKey) == retryable
        )
    }

    /// A `Retry-After` in each form RFC 9110 allows, and the wait it asks for from ``now``.
    static let retryAfters: [(header: String?, wait: Duration?)] = [
        (nil, nil),
        ("120", .seconds(120)),
        ("Tue, 14 Nov 2023 22:13:50 GMT", .seconds(30)),
        ("Tuesday, 14-Nov-23 22:13:25 GMT", .seconds(5)),
        ("Tue Nov 14 22:13:21 2023", .seconds(1)),
    ]

    @Test(arguments: [408, 409, 429, 500, 501, 503, 505], retryAfters)
    func eachStatusIsClassifiedTheSameWithAndWithoutRetryAfter(
        status: Int,
        retryAfter: (header: String?, wait: Duration?)
    ) {
        let response = APIResponse(
            statusCode: status,
            headers: retryAfter.header.map { ["Retry-After": $0] } ?? [:],
            body: Data()
        )
        for keyed in [false, true] {
            let answer = AppSyncAnswer(response, sentWithIdempotencyKey: keyed, now: Self.now)
            switch (status, keyed) {
            case (408, _), (429, _), (500, _), (503, _), (409, true):
                #expect(answer == .retryable(response, retryAfter: retryAfter.wait.map(RetryAfter.init(delay:))))
            default:
                #expect(answer == .refused(response), "\(status) is final, Retry-After or not")
            }
        }
        #expect(
            AppSyncAnswer(
                APIResponse(statusCode: 204, headers: [:], body: Data()),
                sentWithIdempotencyKey: false,
                now: Self.now
            ) == .success(APIResponse(statusCode: 204, headers: [:], body: Data()))
        )
    }

    @Test func retryAfterReadsDelaySecondsAndTheThreeHTTPDateFormatsOnly() {
        func wait(_ header: String) -> Duration? { RetryAfter(header, now: Self.now)?.delay }
        #expect(wait("0") == .zero)
        #expect(wait(" 12 ") == .seconds(12))
        #expect(wait("99999999999999999999999") == .seconds(Int64.max), "too large waits the longest")
        #expect(wait("Sun, 06 Nov 1994 08:49:37 GMT") == .zero, "a date past is no wait")
        #expect(wait("Fri Dec  1 00:00:00 2023") == .seconds(1_388_800), "asctime pads a day with a space")
        #expect(wait("Wed Nov 15  0:00:00 2023") == nil, "the time has two digits per part")
        #expect(wait("Tue, 14 Nov 2023 22:13:20.5 GMT") == nil)
        #expect(wait("Tue, 14 Nov 2023 22:13:50 UTC") == nil, "HTTP dates are in GMT")
        #expect(wait("Thu, 30 Feb 2023 00:00:00 GMT") == nil, "no such day")
        #expect(wait("Tue, 14 nov 2023 22:13:50 GMT") == nil, "month names are case-sensitive")
        #expect(wait("Tues, 14 Nov 2023 22:13:50 GMT") == nil)
        #expect(wait("Tue, 14 Nov 2023 22:13:20 GMT") == .zero)
        #expect(wait("Wed, 15 Nov 2023 00:00:00 GMT") == .seconds(6400))
        for unreadable in ["-1", "1.5", "+5", "soon", "", "0x10", "١٢"] {
            #expect(wait(unreadable) == nil, "\(unreadable)")
        }
        #expect(RetryAfter(headers: ["RETRY-AFTER": "3"], now: Self.now)?.delay == .seconds(3))
        #expect(RetryAfter(headers: ["x-retry-after": "3"], now: Self.now) == nil)
    }

    @Test func anRFC850YearIsTheNearestWithItsDigitsAndNeverMoreThan50YearsAhead() {
        // 2023: "73" is 2073 (50 years ahead), "74" is 1974.
        #expect(RetryAfter("Sunday, 01-Jan-73 00:00:00 GMT", now: Self.now)?.delay ?? .zero > .seconds(1_500_000_000))
        #expect(RetryAfter("Tuesday, 01-Jan-74 00:00:00 GMT", now: Self.now)?.delay == .zero)
        #expect(RetryAfter("Tuesday, 14-Nov-23 22:13:21 GMT", now: Self.now)?.delay == .seconds(1))
        #expect(RetryAfter("Tue, 14-Nov-23 22:13:21 GMT", now: Self.now) == nil, "RFC 850 spells the day out")
    }

    // MARK: - AppSync's errors

    /// A one-error body with `error`, read by the one reader.
    static func read(_ error: JSONValue) throws -> GraphQLError {
        try #require(try GraphQLResponseBody(json: ["data": nil, "errors": [error]]).errors?.first)
    }

    @Test func aTopLevelErrorTypeIsReadAndCopiedIntoExtensions() throws {
        let error = try Self.read([
            "path": ["updateTodo"], "data": nil, "errorType": "Unauthorized", "errorInfo": nil,
            "locations": [["line": 2, "column": 3, "sourceName": nil]],
            "message": "Not Authorized to access updateTodo on type Mutation",
        ])
        #expect(error.message == "Not Authorized to access updateTodo on type Mutation")
        #expect(error.errorType == "Unauthorized")
        #expect(error.appSyncErrorType == .unauthorized)
        #expect(error.isUnauthorized)
        #expect(error.path == ["updateTodo"])
        #expect(error.locations == [GraphQLError.Location(line: 2, column: 3)])
        #expect(error.errorInfo == nil && error.data == nil)
        #expect(error.extensions == ["errorType": "Unauthorized"])
    }

    @Test func anErrorTypeInsideExtensionsIsReadAsTheTopLevelOne() throws {
        let error = try Self.read([
            "message": "Conflict resolver rejects mutation.",
            "extensions": ["errorType": "ConflictUnhandled", "data": ["id": "1", "_version": 4], "code": "X"],
        ])
        #expect(error.errorType == "ConflictUnhandled")
        #expect(error.appSyncErrorType == .conflictUnhandled)
        #expect(error.data == ["id": "1", "_version": 4])
        #expect(
            error.extensions == ["errorType": "ConflictUnhandled", "data": ["id": "1", "_version": 4], "code": "X"]
        )
    }

    @Test func aConflictKeepsTheServersItemInDataAndItsErrorInfo() throws {
        let error = try Self.read([
            "path": ["updateTodo"], "errorType": "ConflictUnhandled", "message": "Conflict resolver rejects mutation.",
            "data": ["id": "1", "name": "server", "_version": 4, "_deleted": nil],
            "errorInfo": ["reason": "version"], "errorCode": 400,
        ])
        #expect(error.appSyncErrorType == .conflictUnhandled)
        #expect(error.data == ["id": "1", "name": "server", "_version": 4, "_deleted": nil])
        #expect(error.errorInfo == ["reason": "version"])
        #expect(
            error.extensions == [
                "errorType": "ConflictUnhandled", "errorInfo": ["reason": "version"], "errorCode": 400,
                "data": ["id": "1", "name": "server", "_version": 4, "_deleted": nil],
            ]
        )
        #expect(error.description == "ConflictUnhandled: Conflict resolver rejects mutation.")
    }

    @Test func theTopLevelWinsOverExtensionsAndNullsAreAbsent() throws {
        let error = try Self.read([
            "message": "m", "errorType": "ConflictUnhandled", "data": nil,
            "extensions": ["errorType": "Other", "data": ["id": "1"], "errorInfo": nil],
        ])
        #expect(error.errorType == "ConflictUnhandled")
        #expect(error.data == ["id": "1"])
        #expect(error.errorInfo == nil)
        #expect(error.extensions == ["errorType": "ConflictUnhandled", "data": ["id": "1"]])
    }

    @Test(
        arguments: [
            (
                "DynamoDB:ConditionalCheckFailedException", "The conditional request failed (Service: DynamoDb)",
                AppSyncErrorType.conditionalCheckFailed
            ),
            ("ConditionalCheckFailedException", "The conditional request failed", .conditionalCheckFailed),
            (
                nil, "The conditional request failed (Service: AmazonDynamoDBv2; Status Code: 400)",
                .conditionalCheckFailed
            ),
            ("IdempotentResponseLostException", "applied, answer lost", .idempotentResponseLost),
            ("IdempotencyKeyInUseException", "still running", .idempotencyKeyInUse),
            ("UnauthorizedException", "You are not authorized to make this call.", .unauthorizedException),
            ("Unauthorized", "Not Authorized to access getTodo on type Query", .unauthorized),
            ("ConflictUnhandled", "Conflict resolver rejects mutation.", .conflictUnhandled),
            ("DynamoDB:DynamoDbException", "m", .dynamoDB),
        ] as [(String?, String, AppSyncErrorType)]
    )
    func eachAppSyncErrorTypeHasItsCase(errorType: String?, message: String, type: AppSyncErrorType) throws {
        var error: [String: JSONValue] = ["message": .string(message)]
        error["errorType"] = errorType.map(JSONValue.string)
        #expect(try Self.read(.object(error)).appSyncErrorType == type)
        #expect(try Self.read(["message": .string(message), "extensions": .object(error)]).appSyncErrorType == type)
    }

    @Test func anUnknownOrAbsentErrorTypeHasNoCase() throws {
        #expect(try Self.read(["message": "m", "errorType": "Lambda:Unhandled"]).appSyncErrorType == nil)
        #expect(try Self.read(["message": "m", "errorType": "DynamoDB:Nope"]).appSyncErrorType == nil)
        #expect(try Self.read(["message": "Not Authorized to access x on type Query"]).appSyncErrorType == nil)
        #expect(try Self.read(["message": "m", "errorType": "ConflictUnhandledX"]).isUnauthorized == false)
    }

    @Test func malformedErrorsAreRefusedAtTheMemberAtFault() {
        func problem(_ body: JSONValue) -> String? {
            do {
                _ = try GraphQLResponseBody(json: body)
                return nil
            } catch {
                return error.description
            }
        }
        #expect(
            problem(["errors": [["errorType": "X"]]])
                == "The response is not a GraphQL response: 'errors.0.message' is null, where a String was expected."
        )
        #expect(
            problem(["errors": "boom"])
                == "The response is not a GraphQL response: 'errors' is the string \"boom\", where a list was expected."
        )
        #expect(
            problem(["errors": [["message": "m"], 3]])
                == "The response is not a GraphQL response: 'errors.1' is the number 3, where an object was expected."
        )
        #expect(
            problem(["errors": [["message": "m", "locations": [["line": 1]]]]])
                == "The response is not a GraphQL response: 'errors.0.locations.0.column' is null, where an Int was "
                + "expected."
        )
        #expect(
            problem(["errors": [["message": "m", "extensions": ["errorType": 5]]]])
                == "The response is not a GraphQL response: 'errors.0.extensions.errorType' is the number 5, where a "
                + "String was expected."
        )
        #expect(
            problem([1]) == "The response is not a GraphQL response: the body is a list, where an object was expected."
        )
        #expect(problem(["data": nil, "errors": nil]) == nil)
        #expect(throws: GraphQLResponseBodyError.self) { try GraphQLResponseBody(parsing: Data("{".utf8)) }
    }

    // MARK: - The steps of a request

    @Test func aRefusalAsAWholeIsRefusedWithItsUnauthorizedException() async throws {
        let body =
            #"{"errors":[{"errorType":"UnauthorizedException","message":"You are not authorized to make this call."}]}"#
        let transport = ScriptedTransport([
            APIResponse(statusCode: 401, headers: ["Retry-After": "1"], body: Data(body.utf8))
        ])
        let request = AppSyncRequest(
            URLRequest(url: URL(string: "https://example.com/graphql")!),
            body: Data("{}".utf8)
        )
        let answer = try await request.send(by: RecordingAuthorizer(), over: transport, now: { Self.now })
        guard case .refused(let response) = answer else {
            Issue.record("expected a refusal, got \(answer)")
            return
        }
        #expect(response.statusCode == 401)
        let errors = try #require(try answer.body().errors)
        #expect(errors.map(\.appSyncErrorType) == [.unauthorizedException])
        let unauthorized = errors.allSatisfy { $0.isUnauthorized }
        #expect(unauthorized)
    }

    @Test func theStepsRunInOrderAndTheSignatureCoversEverything() async throws {
        let transport = ScriptedTransport([APIResponse(statusCode: 409, headers: [:], body: Data())])
        var request = AppSyncRequest(
            URLRequest(url: URL(string: "https://example.com/graphql")!),
            body: Data(#"{"query":"mutation { m }"}"#.utf8),
            headers: ["Idempotency-Key": "k1", "b-own": "2", "a-own": "1"],
            interceptors: [AddHeader(name: "x-interceptor", value: "after the headers")]
        )
        let authorizer = RecordingAuthorizer()
        var answer = try await request.send(by: authorizer, over: transport)
        #expect(answer == .retryable(try #require(transport.responses.first), retryAfter: nil), "a keyed 409 waits")
        #expect(
            authorizer.seenBySignature == [
                "a-own", "b-own", "content-type", "idempotency-key", "x-api-key", "x-interceptor",
            ]
        )
        let sent = try #require(transport.requests.first)
        #expect(sent.httpMethod == "POST")
        #expect(
            sent.value(forHTTPHeaderField: "x-signature")
                == "a-own,b-own,content-type,idempotency-key,x-api-key,x-interceptor"
        )
        request.headers["Idempotency-Key"] = nil
        answer = try await request.send(by: authorizer, over: transport)
        #expect(answer == .refused(try #require(transport.responses.first)), "a 409 without a key is final")
    }

    @Test func noResponseIsATransportErrorThatSaysWhy() async throws {
        let url = URL(string: "http://localhost:1/graphql")!
        let cases: [(any Error, String)] = [
            (
                URLError(.cannotConnectToHost),
                "The request to http://localhost:1/graphql could not connect to the server; check that it is running."
            ),
            (URLError(.timedOut), "The request to http://localhost:1/graphql timed out."),
            (CancellationError(), "The request to http://localhost:1/graphql was cancelled."),
            (Failure(), "The request to http://localhost:1/graphql failed: the disk is full."),
        ]
        for (thrown, message) in cases {
            let request = AppSyncRequest(URLRequest(url: url), body: Data("{}".utf8))
            let transport = ScriptedTransport(failing: { throw thrown })
            let error = await #expect(throws: AppSyncTransportError.self) {
                try await request.send(by: RecordingAuthorizer(), over: transport)
            }
            #expect(error?.description == message)
        }
    }
}

private struct Failure: Error, CustomStringConvertible {
    var description: String { "the disk is full" }
}

/// Answers from a script, recording the requests.
private final class ScriptedTransport: HTTPTransport {
    let responses: [APIResponse]
    private let failure: (@Sendable () throws -> Void)?
    private let sent = Mutex<[URLRequest]>([])

    init(_ responses: [APIResponse]) {
        self.responses = responses
        failure = nil
    }

    init(failing: @escaping @Sendable () throws -> Void) {
        responses = []
        failure = failing
    }

    var requests: [URLRequest] { sent.withLock { $0 } }

    func send(_ request: URLRequest) async throws -> APIResponse {
        let index = sent.withLock { sent in
            sent.append(request)
            return sent.count - 1
        }
        try failure?()
        return responses[min(index, responses.count - 1)]
    }
}

/// An API key prelude, and a "signature" listing the headers it saw.
private final class RecordingAuthorizer: AppSyncRequestAuthorizer {
    private let seen = Mutex<[String]>([])
    var seenBySignature: [String] { seen.withLock { $0 } }

    func addAuthorizationHeaders(to request: inout URLRequest) async throws {
        #expect(request.value(forHTTPHeaderField: "content-type") == "application/json", "the body's type comes first")
        #expect(request.value(forHTTPHeaderField: "a-own") == nil, "the prelude comes before the request's headers")
        request.setValue("key", forHTTPHeaderField: "x-api-key")
    }

    func sign(_ request: URLRequest) async throws -> URLRequest {
        let names = (request.allHTTPHeaderFields ?? [:]).keys.map { $0.lowercased() }.sorted()
        seen.withLock { $0 = names }
        var request = request
        request.setValue(names.joined(separator: ","), forHTTPHeaderField: "x-signature")
        return request
    }
}

private struct AddHeader: AppSyncRequestInterceptor {
    let name: String
    let value: String

    func intercept(_ request: URLRequest) async throws -> URLRequest {
        #expect(request.value(forHTTPHeaderField: "a-own") == "1", "interceptors come after the request's headers")
        var request = request
        request.setValue(value, forHTTPHeaderField: name)
        return request
    }
}
