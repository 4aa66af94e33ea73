import Amplify
import Testing

@Test func integersStayExact() throws {
    let value = try JSONDecoderHelper.decode("{\"big\": 12345678901234567}")
    #expect(value.big == .integer(12_345_678_901_234_567))
}
