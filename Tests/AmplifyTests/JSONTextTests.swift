import AWSWire
import Amplify
import Foundation
import Testing

/// The one JSON text reader and writer, checked on `JSONValue` against Foundation's coders.
@Suite struct JSONTextTests {
    /// Values whose text `JSONEncoder` (sorted keys, unescaped slashes) writes: the canonical
    /// text must be the same bytes.
    static let samples: [JSONValue] = [
        ["z": 1, "a": [true, false, nil], "m": ["y": "é/😀", "b": -0.5]],
        ["whole": .number(2), "large": .number(1e21), "small": .number(1e-7), "sum": .number(0.1 + 0.2)],
        ["negativeZero": .number(-0.0), "big": .number(1e15), "huge": .number(1.234_567_890_123_456_8e17)],
        ["text": "quote \" backslash \\ newline \n tab \t bell \u{07} back \u{08} feed \u{0C} del \u{7F}"],
        [], [:], "plain", 42, .null,
    ]

    @Test(arguments: samples)
    func canonicalTextIsWhatJSONEncoderWrites(_ value: JSONValue) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let expected = String(decoding: try encoder.encode(value), as: UTF8.self)
        #expect(value.canonicalText == expected)
    }

    @Test(arguments: samples)
    func readingGivesWhatJSONDecoderGives(_ value: JSONValue) throws {
        let text = try #require(value.canonicalText)
        let decoded = try JSONDecoder().decode(JSONValue.self, from: Data(text.utf8))
        #expect(try JSONValue(parsing: text) == decoded)
    }

    /// Strings that mix characters written as they are (ASCII, two-, three- and four-byte
    /// UTF-8, a combining mark) with every character that needs an escape, at every position:
    /// the text is `JSONEncoder`'s, and reads back to the same string.
    @Test func stringsWithEscapesAnywhereAreWrittenAsJSONEncoderWritesThem() throws {
        let plain: [String] = ["a", "Z", "/", "é", "€", "😀", "e\u{301}", " ", "\u{7F}"]
        let escaped: [String] = ["\"", "\\", "\n", "\r", "\t", "\u{08}", "\u{0C}", "\u{00}", "\u{01}", "\u{1F}"]
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        var generator = SystemRandomNumberGenerator()
        for length in 0..<40 {
            for _ in 0..<50 {
                var string = ""
                for _ in 0..<length {
                    let pool = Bool.random(using: &generator) ? plain : escaped
                    string += pool.randomElement(using: &generator)!
                }
                let value = JSONValue.string(string)
                let expected = String(decoding: try encoder.encode(value), as: UTF8.self)
                #expect(value.canonicalText == expected, "\(string.debugDescription)")
                #expect(try JSONValue(parsing: try #require(value.canonicalText)) == value)
            }
        }
    }

    /// Objects written member by member (a stored row's columns), in an array: separators, keys
    /// escaped, JSON text kept as it is.
    @Test func anObjectWrittenMemberByMemberHasItsMembersInOrder() {
        var writer = JSONTextWriter(sortsKeys: true, doubleStyle: .keepsFraction)
        writer.writeArray(1...2) { index, writer in
            writer.writeObject { writer in
                writer.writeKey("id")
                writer.write("r\(index)")
                writer.writeKey(#"say "hi""#)
                writer.writeJSONText(#"["a",{"b":1}]"#)
                writer.writeKey("score")
                writer.write(2.0)
                writer.writeKey("none")
                writer.writeNull()
            }
        }
        #expect(
            writer.text
                == #"[{"id":"r1","say \"hi\"":["a",{"b":1}],"score":2.0,"none":null},"#
                + #"{"id":"r2","say \"hi\"":["a",{"b":1}],"score":2.0,"none":null}]"#
        )
    }

    @Test func wholeNumbersReadAsIntegersAsJSONDecoderReadsThem() throws {
        #expect(
            try JSONValue(parsing: "[2.0, 1e3, -0.0, 2.5, 9223372036854775807]") == [2, 1000, 0, 2.5, .integer(.max)]
        )
    }

    @Test func aNumberADoubleCannotHoldIsRefused() {
        #expect(throws: JSONParseError(offset: 4, reason: "the number 1e400 is out of range")) {
            try JSONValue(parsing: "[1, 1e400]")
        }
    }

    @Test func nonFiniteNumbersHaveNoCanonicalText() {
        #expect(JSONValue.array([.number(.nan)]).canonicalText == nil)
        #expect(JSONValue.object(["a": .number(.infinity)]).canonicalText == nil)
    }

    @Test(arguments: [
        ("", 0, "unexpected end of input"), ("{", 1, "expected a key"), ("[1,]", 3, "unexpected character"),
        ("01", 2, "leading zero in a number"), ("\"\\x\"", 3, "invalid escape"),
        (
            "[1] 2", 4,
            "unexpected text after the JSON value"
        ),
        ("\"\\ud800\"", 7, "unpaired surrogate"), ("\"a\u{01}\"", 2, "control character in a string"),
    ])
    func malformedTextIsRefusedWithItsOffset(_ text: String, _ offset: Int, _ reason: String) {
        #expect(throws: JSONParseError(offset: offset, reason: reason)) { try JSONValue(parsing: text) }
    }

    @Test func deepNestingIsRefusedNotACrash() {
        let text = String(repeating: "[", count: 600) + String(repeating: "]", count: 600)
        #expect(throws: JSONParseError(offset: 512, reason: "nesting deeper than 512 levels")) {
            try JSONValue(parsing: text)
        }
    }
}
