import Foundation
import StratusServer
import Testing

/// The AWS scalars: values AppSync accepts are stored, others refused with its messages.
@Suite struct ScalarTests {
    static let schema = """
        type Event @model {
          id: ID!
          day: AWSDate
          time: AWSTime
          at: AWSDateTime
          stamp: AWSTimestamp
          email: AWSEmail
          data: AWSJSON
          phone: AWSPhone
          url: AWSURL
          ip: AWSIPAddress
          days: [AWSDate]
          count: Int
        }
        """

    struct Value: CustomTestStringConvertible, Sendable {
        var field: String
        var value: JSON
        var testDescription: String { "\(field) \(value.text)" }
    }

    static let accepted: [Value] = [
        // Int's bounds, written as numbers with a fraction part.
        Value(field: "count", value: -2_147_483_648.0),
        Value(field: "count", value: 2_147_483_647.0),
        Value(field: "day", value: "1970-01-01"),
        Value(field: "day", value: "2024-02-29Z"),
        Value(field: "day", value: "1970-01-01-07:00"),
        Value(field: "day", value: "1970-01-01+05:30:15"),
        Value(field: "time", value: "12:30"),
        Value(field: "time", value: "23:59:59.123456789"),
        Value(field: "time", value: "12:30:00+01:00"),
        Value(field: "at", value: "2023-11-14T22:13:20.000Z"),
        Value(field: "at", value: "1970-01-01T12:00:00.2-07:00"),
        Value(field: "at", value: "-2017-01-01T00:00Z"),
        Value(field: "stamp", value: 1_700_000_000),
        Value(field: "email", value: "jeff@amazon.com"),
        Value(field: "email", value: "first.last+tag@mail.example.co.uk"),
        Value(field: "data", value: #"{"a":[1,2]}"#),
        Value(field: "data", value: "42"),
        Value(field: "phone", value: "+1 555 123 4567"),
        Value(field: "phone", value: "555-123-4567"),
        Value(field: "url", value: "https://example.com/a?b=c"),
        Value(field: "url", value: "mailto:jeff@amazon.com"),
        Value(field: "url", value: "ftp://ftp.example.com/pub/file.txt"),
        // Two slashes in the query are not in the path.
        Value(field: "url", value: "https://example.com/go?to=https://example.org/"),
        Value(field: "ip", value: "127.0.0.1"),
        Value(field: "ip", value: "127.0.0.1/8"),
        Value(field: "ip", value: "::1"),
        Value(field: "ip", value: "2001:db8::/32"),
    ]

    static let refused: [(Value, String)] = [
        (Value(field: "day", value: "2023-02-29"), "Unable to parse `2023-02-29` as a valid date."),
        (Value(field: "day", value: "2023-1-01"), "Unable to parse `2023-1-01` as a valid date."),
        (Value(field: "time", value: "24:00"), "Unable to parse `24:00` as a valid time."),
        (Value(field: "time", value: "12:00:00.1234567890"), "Unable to parse `12:00:00.1234567890` as a valid time."),
        (Value(field: "at", value: "2019"), "Unable to parse `2019` as a valid DateTime Object."),
        (
            Value(field: "at", value: "2023-11-14T22:13:20"),
            "Unable to parse `2023-11-14T22:13:20` as a valid DateTime Object."
        ),
        (Value(field: "stamp", value: "now"), "Unable to parse `now` as a valid timestamp."),
        (Value(field: "email", value: "jeff"), "Unable to parse `jeff` as a valid email address."),
        // A domain without a dot, or with an empty label.
        (Value(field: "email", value: "a@b"), "Unable to parse `a@b` as a valid email address."),
        (Value(field: "email", value: "a@b."), "Unable to parse `a@b.` as a valid email address."),
        (Value(field: "email", value: "a@.com"), "Unable to parse `a@.com` as a valid email address."),
        (Value(field: "data", value: "{a: 1}"), "Unable to parse `{a: 1}` as valid JSON."),
        (Value(field: "phone", value: "(555) 123-4567"), "Unable to parse `(555) 123-4567` as a valid phone number."),
        (Value(field: "phone", value: "12345"), "Unable to parse `12345` as a valid phone number."),
        (Value(field: "url", value: "example.com"), "Unable to parse `example.com` as a valid URL."),
        // Not a URL of a resource: a link to it would run script.
        (
            Value(field: "url", value: "javascript:alert(document.cookie)"),
            "Unable to parse `javascript:alert(document.cookie)` as a valid URL."
        ),
        (
            Value(field: "url", value: "data:text/html,<script>alert(1)</script>"),
            "Unable to parse `data:text/html,<script>alert(1)</script>` as a valid URL."
        ),
        // Two forward slashes in the path, and an HTTP URL without a host.
        (
            Value(field: "url", value: "https://example.com//a"),
            "Unable to parse `https://example.com//a` as a valid URL."
        ),
        (Value(field: "url", value: "https:/example.com"), "Unable to parse `https:/example.com` as a valid URL."),
        (Value(field: "ip", value: "256.0.0.1"), "Unable to parse `256.0.0.1` as a valid IP address."),
        (Value(field: "ip", value: "10.0.0.1/33"), "Unable to parse `10.0.0.1/33` as a valid IP address."),
        (Value(field: "days", value: ["2024-01-01", "soon"]), "Unable to parse `soon` as a valid date."),
        // GraphQLSwift's Int takes a fraction as it is: stored, it broke every later read.
        (
            Value(field: "count", value: 1.5),
            "`1.5` is not a whole number: an Int takes a whole number from -2147483648 to 2147483647."
        ),
        (
            Value(field: "count", value: 3e9),
            "`3000000000.0` is not a whole number: an Int takes a whole number from -2147483648 to 2147483647."
        ),
    ]

    static let create = "mutation C($input: CreateEventInput!) { createEvent(input: $input) { id } }"

    @Test(arguments: accepted)
    func acceptedValuesAreStored(_ value: Value) async throws {
        let server = try await TestServer(Self.schema)
        let body = await server.run(Self.create, ["input": ["id": "e1", .init(value.field): value.value]])
        #expect(body == #"{"data":{"createEvent":{"id":"e1"}}}"#)
    }

    @Test(arguments: refused)
    func refusedVariablesNameTheFieldAndTheValue(_ value: Value, _ message: String) async throws {
        let server = try await TestServer(Self.schema)
        #expect(
            await server.run(Self.create, ["input": ["id": "e1", .init(value.field): value.value]])
                == #"{"data":null,"errors":[{"path":null,"locations":[{"line":1,"column":12,"sourceName":null}],"#
                + #""message":"Variable '\#(value.field)' has an invalid value. \#(message)"}]}"#
        )
        #expect(await server.run("{ listEvents { items { id } } }") == #"{"data":{"listEvents":{"items":[]}}}"#)
    }

    @Test func aWholeNumberWrittenWithAFractionIsStoredAsAnInt() async throws {
        let server = try await TestServer(Self.schema)
        #expect(
            await server.run(Self.create, ["input": ["id": "e1", "count": 2.0]])
                == #"{"data":{"createEvent":{"id":"e1"}}}"#
        )
        #expect(
            await server.run("{ listEvents { items { id count } } }")
                == #"{"data":{"listEvents":{"items":[{"id":"e1","count":2}]}}}"#
        )
        #expect(await server.run("{ getEvent(id: \"e1\") { count } }") == #"{"data":{"getEvent":{"count":2}}}"#)
    }

    @Test func refusedLiteralsNameTheArgumentPath() async throws {
        let server = try await TestServer(Self.schema)
        #expect(
            await server.run(#"mutation { createEvent(input: {id: "e1", at: "soon"}) { id } }"#)
                == #"{"data":null,"errors":[{"path":null,"locations":[{"line":1,"column":24,"sourceName":null}],"#
                + #""message":"Validation error of type WrongType: argument 'input.at' with value "#
                + #"'StringValue{value='soon'}' is not a valid 'AWSDateTime' @ 'createEvent'"}]}"#
        )
        #expect(
            await server.run(#"mutation { made: createEvent(input: {id: "e1", days: ["2024-01-01", "x"]}) { id } }"#)
                == #"{"data":null,"errors":[{"path":null,"locations":[{"line":1,"column":30,"sourceName":null}],"#
                + #""message":"Validation error of type WrongType: argument 'input.days' with value "#
                + #"'StringValue{value='x'}' is not a valid 'AWSDate' @ 'made'"}]}"#
        )
    }

    /// An `Int` literal past 32 bits is refused before anything runs, as a variable is; it was
    /// taken as a 64-bit number, so `listEvents(limit: 2147483648)` answered a page and an
    /// `Int` field could store a value no client could read back as an `Int`.
    @Test func intLiteralsPast32BitsAreRefused() async throws {
        let server = try await TestServer(Self.schema)
        #expect(
            await server.run("{ listEvents(limit: 2147483648) { nextToken } }")
                == #"{"data":null,"errors":[{"path":null,"locations":[{"line":1,"column":14,"sourceName":null}],"#
                + #""message":"Validation error of type WrongType: argument 'limit' with value "#
                + #"'IntValue{value=2147483648}' is not a valid 'Int' @ 'listEvents'"}]}"#
        )
        #expect(
            await server.run(#"mutation { createEvent(input: {id: "e1", count: -2147483649}) { id } }"#)
                == #"{"data":null,"errors":[{"path":null,"locations":[{"line":1,"column":24,"sourceName":null}],"#
                + #""message":"Validation error of type WrongType: argument 'input.count' with value "#
                + #"'IntValue{value=-2147483649}' is not a valid 'Int' @ 'createEvent'"}]}"#
        )
        #expect(
            await server.run(#"mutation { createEvent(input: {id: "e1", count: -2147483648}) { count } }"#)
                == #"{"data":{"createEvent":{"count":-2147483648}}}"#
        )
        #expect(
            await server.run("{ listEvents { items { id } } }") == #"{"data":{"listEvents":{"items":[{"id":"e1"}]}}}"#
        )
    }

    @Test func aWSJSONGivenAsAnObjectSaysToSendJSONText() async throws {
        let server = try await TestServer(Self.schema)
        let hint =
            #"Unable to parse `{\"a\":[1]}` as valid JSON. AWSJSON takes a JSON-encoded string: "#
            + #"send \"{\\\"a\\\":[1]}\" instead."#
        #expect(
            await server.run(Self.create, ["input": ["id": "e1", "data": ["a": [1]]]])
                == #"{"data":null,"errors":[{"path":null,"locations":[{"line":1,"column":12,"sourceName":null}],"#
                + #""message":"Variable 'data' has an invalid value. \#(hint)"}]}"#
        )
        #expect(
            await server.run(#"mutation { createEvent(input: {id: "e1", data: {a: [1]}}) { id } }"#)
                == #"{"data":{"createEvent":null},"errors":[{"path":["createEvent"],"data":null,"#
                + #""errorType":"ValidationException","errorInfo":null,"#
                + #""locations":[{"line":1,"column":12,"sourceName":null}],"message":"\#(hint)"}]}"#
        )
        #expect(await server.run("{ listEvents { items { id } } }") == #"{"data":{"listEvents":{"items":[]}}}"#)
    }

    @Test func aWSJSONIsReturnedAsCompactJSONText() async throws {
        let server = try await TestServer(Self.schema)
        _ = await server.run(Self.create, ["input": ["id": "e1", "data": #"{ "b" : [1, 2.5, "x"] , "a": null }"#]])
        #expect(
            await server.run(#"{ getEvent(id: "e1") { data } }"#)
                == #"{"data":{"getEvent":{"data":"{\"b\":[1,2.5,\"x\"],\"a\":null}"}}}"#
        )
    }
}
