import Foundation
import StratusCodegen

/// The checks AppSync applies to the values of its scalars, with AppSync's messages.
enum AWSScalarValidation {
    /// Why `scalar` refuses `value`, in AppSync's words; `nil` when it accepts it. Standard
    /// GraphQL scalars are left to the GraphQL executor.
    static func problem(with value: JSON, as scalar: Scalar) -> String? {
        if value.isNull { return nil }
        let text = value.stringValue
        let shown = text ?? value.text
        switch scalar {
        case .id, .string, .int, .float, .boolean:
            return nil
        case .awsDate:
            return text.map(isDate) == true ? nil : "Unable to parse `\(shown)` as a valid date."
        case .awsTime:
            return text.map(isTime) == true ? nil : "Unable to parse `\(shown)` as a valid time."
        case .awsDateTime:
            return text.map(isDateTime) == true ? nil : "Unable to parse `\(shown)` as a valid DateTime Object."
        case .awsTimestamp:
            if case .int = value { return nil }
            return "Unable to parse `\(shown)` as a valid timestamp."
        case .awsEmail:
            return text.map(isEmail) == true ? nil : "Unable to parse `\(shown)` as a valid email address."
        case .awsJSON:
            guard let text else {
                // An object, list, number or Boolean given as itself rather than as JSON text.
                return "Unable to parse `\(shown)` as valid JSON. AWSJSON takes a JSON-encoded string: "
                    + "send \(JSON.string(shown).text) instead."
            }
            // Only whether the text parses matters here.
            if (try? JSON(parsing: text)) != nil { return nil }
            return "Unable to parse `\(shown)` as valid JSON."
        case .awsPhone:
            return text.map(isPhone) == true ? nil : "Unable to parse `\(shown)` as a valid phone number."
        case .awsURL:
            return text.map(isURL) == true ? nil : "Unable to parse `\(shown)` as a valid URL."
        case .awsIPAddress:
            return text.map(isIPAddress) == true ? nil : "Unable to parse `\(shown)` as a valid IP address."
        }
    }

    // MARK: - Dates and times

    /// `1970-01-01`, `-0001-01-01`, `1970-01-01Z`, `1970-01-01+05:30`, `1970-01-01-07:00:00`.
    static func isDate(_ text: String) -> Bool {
        var scanner = Scanner(text)
        return scanner.date() && scanner.timeZone(required: false) && scanner.isAtEnd
    }

    /// `12:30`, `12:30:45`, `12:30:45.123456789`, each with an optional zone.
    static func isTime(_ text: String) -> Bool {
        var scanner = Scanner(text)
        return scanner.time() && scanner.timeZone(required: false) && scanner.isAtEnd
    }

    /// `1970-01-01T12:30:45.123Z`: a date, `T`, a time, and a zone, which is required.
    static func isDateTime(_ text: String) -> Bool {
        var scanner = Scanner(text)
        return scanner.date() && scanner.skip("T") && scanner.time() && scanner.timeZone(required: true)
            && scanner.isAtEnd
    }

    private struct Scanner {
        let characters: [Character]
        var index = 0

        init(_ text: String) {
            characters = Array(text)
        }

        var isAtEnd: Bool { index == characters.count }

        mutating func skip(_ character: Character) -> Bool {
            guard index < characters.count, characters[index] == character else { return false }
            index += 1
            return true
        }

        /// Exactly `count` digits (at least `count` when `orMore`), as a number.
        mutating func number(_ count: Int, orMore: Bool = false) -> Int? {
            var digits = 0
            var value = 0
            while index < characters.count, let digit = characters[index].wholeNumberValue,
                characters[index].isASCII, orMore || digits < count
            {
                value = value &* 10 &+ digit
                digits += 1
                index += 1
            }
            return digits >= count ? value : nil
        }

        mutating func date() -> Bool {
            _ = skip("-")
            guard let year = number(4, orMore: true), skip("-"), let month = number(2), skip("-"),
                let day = number(2), (1...12).contains(month)
            else { return false }
            let leap = (year % 4 == 0 && year % 100 != 0) || year % 400 == 0
            let days = [31, leap ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][month - 1]
            return (1...days).contains(day)
        }

        mutating func time() -> Bool {
            guard let hour = number(2), hour < 24, skip(":"), let minute = number(2), minute < 60 else { return false }
            if skip(":") {
                guard let second = number(2), second < 60 else { return false }
                if skip(".") {
                    let start = index
                    guard number(1, orMore: true) != nil, index - start <= 9 else { return false }
                }
            }
            return true
        }

        mutating func timeZone(required: Bool) -> Bool {
            if skip("Z") { return true }
            guard index < characters.count, characters[index] == "+" || characters[index] == "-" else {
                return !required
            }
            index += 1
            guard let hours = number(2), hours < 24, skip(":"), let minutes = number(2), minutes < 60 else {
                return false
            }
            if skip(":") {
                guard let seconds = number(2), seconds < 60 else { return false }
            }
            return true
        }
    }

    // MARK: - Other strings

    /// `local-part@domain-part` (RFC 822): one `@` between a non-empty local part and a domain
    /// of at least two dot-separated labels (`amazon.com`), without whitespace. A domain without
    /// a dot (`a@b`) names no host mail can reach, and AppSync refuses it.
    static func isEmail(_ text: String) -> Bool {
        let parts = text.split(separator: "@", omittingEmptySubsequences: false)
        guard parts.count == 2, !parts[0].isEmpty, !text.contains(where: \.isWhitespace) else { return false }
        let labels = parts[1].split(separator: ".", omittingEmptySubsequences: false)
        return labels.count >= 2
            && labels.allSatisfy { label in
                !label.isEmpty && label.first != "-" && label.last != "-"
                    && label.allSatisfy { !$0.isASCII || $0.isLetter || $0.isNumber || $0 == "-" }
            }
    }

    /// An optional `+` and country code, then digit groups separated by single spaces or
    /// hyphens: 7 to 15 digits in all.
    static func isPhone(_ text: String) -> Bool {
        var body = Substring(text)
        if body.first == "+" { body = body.dropFirst() }
        let groups = body.split(omittingEmptySubsequences: false) { $0 == " " || $0 == "-" }
        guard groups.allSatisfy({ !$0.isEmpty && $0.allSatisfy { $0.isASCII && $0.isNumber } }) else { return false }
        return (7...15).contains(groups.reduce(0) { $0 + $1.count })
    }

    /// The schemes of RFC 1738, which AppSync's documentation cites for `AWSURL`, and `https`.
    /// Other schemes, `javascript:` and `data:` among them, are not URLs of a resource.
    static let urlSchemes: Set<String> = [
        "http", "https", "ftp", "file", "mailto", "news", "nntp", "telnet", "gopher", "wais", "prospero",
    ]

    /// The schemes whose URLs name a host after `//` (RFC 1738's common Internet scheme syntax);
    /// `file` may leave it empty (`file:///etc/hosts`).
    private static let hostSchemes: Set<String> = [
        "http", "https", "ftp", "nntp", "telnet", "gopher", "wais", "prospero",
    ]

    /// A URL as AppSync's documentation defines `AWSURL`: RFC 1738, with a scheme (`https:`,
    /// `mailto:`) of ``urlSchemes``, a host where the scheme names one, no two forward slashes
    /// (`//`) in the path, and no whitespace.
    static func isURL(_ text: String) -> Bool {
        guard let colon = text.firstIndex(of: ":"), !text.contains(where: \.isWhitespace),
            URL(string: text) != nil
        else { return false }
        let scheme = text[..<colon].lowercased()
        guard urlSchemes.contains(scheme) else { return false }
        var rest = text[text.index(after: colon)...]
        // The fragment and the query are not part of the path.
        if let end = rest.firstIndex(where: { $0 == "?" || $0 == "#" }) { rest = rest[..<end] }
        if rest.hasPrefix("//") {
            let authority = rest.dropFirst(2).prefix { $0 != "/" }
            if authority.isEmpty, scheme != "file" { return false }
            rest = rest.dropFirst(2 + authority.count)
        } else if hostSchemes.contains(scheme) || scheme == "file" {
            return false
        } else if rest.isEmpty {
            return false
        }
        return !rest.contains("//")
    }

    /// An IPv4 or IPv6 address, optionally with a prefix length: `127.0.0.1/8`, `::1`.
    static func isIPAddress(_ text: String) -> Bool {
        let parts = text.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count <= 2 else { return false }
        let address = String(parts[0])
        var buffer = [UInt8](repeating: 0, count: 16)
        let isV4 = inet_pton(AF_INET, address, &buffer) == 1
        let isV6 = !isV4 && inet_pton(AF_INET6, address, &buffer) == 1
        guard isV4 || isV6 else { return false }
        guard parts.count == 2 else { return true }
        guard let prefix = Int(parts[1]), parts[1].allSatisfy(\.isNumber) else { return false }
        return (0...(isV4 ? 32 : 128)).contains(prefix)
    }
}
