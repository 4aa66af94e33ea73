import Amplify
import Foundation

enum JSONDecoderHelper {
    static func decode(_ text: String) throws -> JSONValue {
        try JSONDecoder().decode(JSONValue.self, from: Data(text.utf8))
    }
}
