import Amplify
import Foundation
import StratusServer
import Testing

/// The JSON of bodies and items: reading and writing.
@Suite struct JSONTests {
    @Test func writingIsCompactOrderedAndEscapesOnlyWhatJSONRequires() {
        let value: JSON = [
            "z": 1, "a": [true, false, nil], "text": "quote \" backslash \\ newline \n tab \t bell \u{07} é /",
            "double": 2.5, "whole": 3.0, "empty": [:],
        ]
        #expect(
            value.text
                == #"{"z":1,"a":[true,false,null],"text":"quote \" backslash \\ newline \n tab \t bell \u0007 é /","#
                + #""double":2.5,"whole":3.0,"empty":{}}"#
        )
    }

    @Test func readingKeepsKeyOrderAndNumberKinds() throws {
        let value = try JSON(
            parsing: #" { "b" : [1, -2.5e2, 9223372036854775807, 1e400], "a" : "\u00e9\ud83d\ude00\/" } "#
        )
        #expect(value.objectValue?.keys == ["b", "a"])
        #expect(value["b"] == [.int(1), .double(-250), .int(Int.max), .double(.infinity)])
        #expect(value["a"] == "é😀/")
    }

    @Test(arguments: ["", "{", "[1,]", "{\"a\" 1}", "01", "1.", "\"\\x\"", "tru", "[1] 2", "\"\u{01}\""])
    func malformedTextIsRefused(_ text: String) {
        #expect(throws: JSONParseError.self) { try JSON(parsing: text) }
    }

    @Test func objectsCompareWithoutRegardToOrder() {
        let first: JSON = ["a": 1, "b": 2]
        let second: JSON = ["b": 2, "a": 1]
        #expect(first == second)
        #expect(first.text != second.text)
    }
}
