import Amplify
import Foundation
import Testing

@Test func integersStayExact() throws {
    let value = try JSONDecoderHelper.decode("{\"big\": 12345678901234567}")
    #expect(value.big == .integer(12_345_678_901_234_567))
}

@Suite("JSONValue")
struct JSONValueTests {
    struct Author: Codable, Equatable {
        var name: String
        var karma: Int
    }

    struct Post: Codable, Equatable {
        var id: String
        var rating: Double
        var views: Int
        var tags: [String]
        var author: Author
        var draft: Bool
        var editor: Author?
    }

    @Test func literalsOfEveryKind() {
        let value: JSONValue = [
            "string": "text",
            "integer": 42,
            "number": 2.5,
            "boolean": true,
            "null": nil,
            "array": [1, "two", [3.0], []],
            "object": ["nested": false, "empty": [:]],
        ]
        #expect(
            value
                == .object([
                    "string": .string("text"),
                    "integer": .integer(42),
                    "number": .number(2.5),
                    "boolean": .boolean(true),
                    "null": .null,
                    "array": .array([.integer(1), .string("two"), .array([.number(3.0)]), .array([])]),
                    "object": .object(["nested": .boolean(false), "empty": .object([:])]),
                ])
        )
    }

    @Test func dynamicMemberLookup() {
        let response: JSONValue = ["listTodos": ["items": [["id": "1", "done": false]], "nextToken": nil]]
        #expect(response.listTodos?.items?[0]?.id == .string("1"))
        #expect(response.listTodos?.items?[0]?.done == .boolean(false))
        #expect(response.listTodos?.nextToken == .null)
        #expect(response.listTodos?.missing == nil)
        #expect(response.listTodos?.items?[1] == nil)
        #expect(response.listTodos?.items?[-1] == nil)
        #expect(response.listTodos?.items?.id == nil)
        #expect(JSONValue.string("text").listTodos == nil)
        #expect(response["listTodos"]?["items"]?[0]?["id"]?.stringValue == "1")
    }

    @Test(
        "value(at:) follows members and array indices",
        arguments: [
            ("a.b.0.c", "deep"),
            ("a.b.1.c", 2),
            ("a.b.0", ["c": "deep"]),
            ("a.b.2.c", nil),
            ("a.b.-1", nil),
            ("a.b.first", nil),
            ("a.b.0.c.d", nil),
            ("a..b.1.c", 2),
            ("0", "member named 0"),
            ("list.1", 20),
            ("missing.b", nil),
        ] as [(String, JSONValue?)]
    )
    func valueAtPath(path: String, expected: JSONValue?) {
        let value: JSONValue = [
            "a": ["b": [["c": "deep"], ["c": 2]]],
            "0": "member named 0",
            "list": [10, 20],
        ]
        #expect(value.value(at: path) == expected)
    }

    @Test func valueAtAnEmptyPathIsTheValueItself() {
        let value: JSONValue = ["a": [1]]
        #expect(value.value(at: "") == value)
        #expect(JSONValue.integer(3).value(at: "") == .integer(3))
    }

    @Test func decodingEveryKind() throws {
        let text = #"{"a":[1,2.5,"s",true,null,{"b":{}}],"c":[],"d":-7}"#
        let value = try JSONDecoderHelper.decode(text)
        #expect(
            value
                == .object([
                    "a": .array([
                        .integer(1), .number(2.5), .string("s"), .boolean(true), .null, .object(["b": .object([:])]),
                    ]),
                    "c": .array([]),
                    "d": .integer(-7),
                ])
        )
        #expect(try JSONEncoderHelper.encode(value) == text)
    }

    @Test(
        "Large integers stay exact from decoding to encoding",
        arguments: ["9007199254740993", "-9007199254740993", "9223372036854775807", "-9223372036854775808"]
    )
    func largeIntegersStayExact(text: String) throws {
        let integer = try #require(Int(text))
        let value = try JSONDecoderHelper.decode(#"{"n":\#(text),"list":[\#(text)]}"#)
        #expect(value.n == .integer(integer))
        #expect(value.list?[0] == .integer(integer))
        #expect(value.n?.intValue == integer)
        #expect(try JSONEncoderHelper.encode(value) == #"{"list":[\#(text)],"n":\#(text)}"#)
    }

    @Test(
        "Numbers with a fraction decode to number(_:)",
        arguments: [("2.5", 2.5), ("-0.125", -0.125), ("0.1", 0.1), ("1.5e300", 1.5e300), ("1e-7", 1e-7)]
    )
    func doubles(text: String, number: Double) throws {
        let value = try JSONDecoderHelper.decode(text)
        #expect(value == .number(number))
        #expect(value.doubleValue == number)
        #expect(value.intValue == nil)
        #expect(try JSONDecoderHelper.decode(try JSONEncoderHelper.encode(value)) == value)
    }

    @Test func doublesAreWrittenInTheirShortestForm() throws {
        #expect(
            try JSONEncoderHelper.encode([JSONValue.number(2.5), .number(0.1), .number(-0.125)]) == "[2.5,0.1,-0.125]"
        )
    }

    @Test(
        "Whole numbers decode to integer(_:) whatever their spelling",
        arguments: [("2.0", 2), ("1e3", 1_000), ("-4.00", -4), ("0.5e1", 5)]
    )
    func wholeNumbers(text: String, integer: Int) throws {
        #expect(try JSONDecoderHelper.decode(text) == .integer(integer))
    }

    @Test func aWholeDoubleComesBackAsAnInteger() throws {
        #expect(try JSONEncoderHelper.encode(JSONValue.number(2.0)) == "2")
        #expect(try JSONValue(encoding: 2.0) == .integer(2))
        #expect(try JSONValue.number(2.0).decode(as: Double.self) == 2.0)
    }

    @Test func integersBeyondIntDecodeToNumbers() throws {
        #expect(try JSONDecoderHelper.decode("12345678901234567890") == .number(12_345_678_901_234_567_168))
    }

    @Test func nonFiniteNumbersCannotBeEncoded() {
        #expect(throws: EncodingError.self) { try JSONEncoderHelper.encode(JSONValue.number(.nan)) }
        #expect(throws: EncodingError.self) { try JSONEncoderHelper.encode(JSONValue.number(.infinity)) }
    }

    @Test func nestedCodableRoundTrip() throws {
        let post = Post(
            id: "p1",
            rating: 4.5,
            views: 9_007_199_254_740_993,
            tags: ["swift", "linux"],
            author: Author(name: "Ada", karma: -3),
            draft: false,
            editor: nil
        )
        let value = try JSONValue(encoding: post)
        #expect(
            value
                == [
                    "id": "p1",
                    "rating": 4.5,
                    "views": 9_007_199_254_740_993,
                    "tags": ["swift", "linux"],
                    "author": ["name": "Ada", "karma": -3],
                    "draft": false,
                ]
        )
        #expect(try value.decode(as: Post.self) == post)
        let inferred: Post = try value.decode()
        #expect(inferred == post)
    }

    struct Profile: Codable, Equatable {
        var authorName: String
        var karmaPoints: Int
    }

    @Test func encodingAndDecodingUseTheGivenCoders() throws {
        let encoder = JSONEncoder()
        encoder.keyEncodingStrategy = .convertToSnakeCase
        let value = try JSONValue(encoding: Profile(authorName: "Ada", karmaPoints: 1), encoder: encoder)
        #expect(value == ["author_name": "Ada", "karma_points": 1])

        let snakeCase: JSONValue = ["author_name": "Ada", "karma_points": 3]
        let decoder = JSONDecoder()
        decoder.keyDecodingStrategy = .convertFromSnakeCase
        #expect(try snakeCase.decode(as: Profile.self, decoder: decoder) == Profile(authorName: "Ada", karmaPoints: 3))
        #expect(throws: DecodingError.self) { try snakeCase.decode(as: Profile.self) }
    }

    @Test func encodingAValueThatIsNotAnObject() throws {
        #expect(try JSONValue(encoding: "text") == .string("text"))
        #expect(try JSONValue(encoding: [1, 2]) == [1, 2])
        #expect(try JSONValue(encoding: Int?.none) == .null)
    }

    @Test func decodingTheWrongShapeThrows() {
        #expect(throws: DecodingError.self) { try JSONValue.string("x").decode(as: Int.self) }
        #expect(throws: DecodingError.self) { try (["id": 1] as JSONValue).decode(as: Author.self) }
    }

    @Test(
        "intValue reads integers and whole numbers",
        arguments: [
            (.number(2.0), 2),
            (.number(2.5), nil),
            (.number(-3.0), -3),
            (.number(-0.0), 0),
            (.integer(7), 7),
            (.number(1e300), nil),
            (.number(.nan), nil),
            (.number(.infinity), nil),
            (.string("2"), nil),
            (.boolean(true), nil),
            (.null, nil),
        ] as [(JSONValue, Int?)]
    )
    func intValue(value: JSONValue, expected: Int?) {
        #expect(value.intValue == expected)
    }

    @Test func accessorsReturnTheirCaseOnly() {
        let object: JSONValue = ["a": 1]
        #expect(object.objectValue == ["a": .integer(1)])
        #expect(object.arrayValue == nil)
        #expect(JSONValue.array([.null]).arrayValue == [.null])
        #expect(JSONValue.string("s").stringValue == "s")
        #expect(JSONValue.integer(1).stringValue == nil)
        #expect(JSONValue.integer(2).doubleValue == 2.0)
        #expect(JSONValue.string("2").doubleValue == nil)
        #expect(JSONValue.boolean(false).booleanValue == false)
        #expect(JSONValue.integer(0).booleanValue == nil)
        #expect(JSONValue.null.isNull)
        #expect(!JSONValue.string("null").isNull)
    }
}
