import AWSWire
import Amplify
import Foundation

/// A JSON object of a configuration file, read key by key with errors that name the key.
package struct ConfigurationObject {
    /// The object's path in the file, such as `api.plugins.awsAPIPlugin.blog`.
    package let path: String
    package let members: [String: JSONValue]

    /// The object at `path`, or an error saying it must be one.
    package init(_ value: JSONValue, path: String, expected: String) throws {
        guard case .object(let members) = value else {
            throw ConfigurationError("\(path) is \(value.configurationText), not an object. \(expected)")
        }
        self.path = path
        self.members = members
    }

    /// The full name of `key`.
    package func name(_ key: String) -> String { "\(path).\(key)" }

    /// The string at `key`; `nil` when it is absent or null.
    ///
    /// - Throws: `ConfigurationError` when the value is not a string, or is an empty one.
    package func optionalString(_ key: String, fix: String) throws -> String? {
        guard let value = members[key], !value.isNull else { return nil }
        guard case .string(let string) = value, !string.isEmpty else {
            throw ConfigurationError("\(name(key)) is \(value.configurationText), not a non-empty string. \(fix)")
        }
        return string
    }

    /// The string at `key`.
    ///
    /// - Throws: `ConfigurationError` when it is missing or is not a non-empty string.
    package func string(_ key: String, fix: String) throws -> String {
        guard let string = try optionalString(key, fix: fix) else {
            throw ConfigurationError("\(name(key)) is missing. \(fix)")
        }
        return string
    }

    /// The http(s) URL at `key`.
    ///
    /// - Throws: `ConfigurationError` when it is missing or is not an absolute http(s) URL.
    package func url(_ key: String, fix: String) throws -> URL {
        let text = try string(key, fix: fix)
        guard let url = URL(string: text), let scheme = url.scheme?.lowercased(),
            scheme == "http" || scheme == "https", url.host?.isEmpty == false
        else {
            throw ConfigurationError("\(name(key)) is '\(text)', which is not an http or https URL. \(fix)")
        }
        return url
    }

    /// The authorization mode at `key`; `nil` when absent.
    ///
    /// - Throws: `ConfigurationError` when the value is not one of the modes, with the
    ///   closest mode when there is one.
    package func optionalAuthorizationType(_ key: String) throws -> AWSAuthorizationType? {
        guard let text = try optionalString(key, fix: AWSAuthorizationType.fix) else { return nil }
        return try AWSAuthorizationType(configurationText: text, key: name(key))
    }

    /// The authorization mode at `key`.
    ///
    /// - Throws: `ConfigurationError` when it is missing or is not one of the modes.
    package func authorizationType(_ key: String) throws -> AWSAuthorizationType {
        guard let type = try optionalAuthorizationType(key) else {
            throw ConfigurationError("\(name(key)) is missing. \(AWSAuthorizationType.fix)")
        }
        return type
    }
}

extension AWSAuthorizationType {
    /// The sentence that lists the modes.
    package static let fix = "Set it to one of \(allCases.map(\.rawValue).joined(separator: ", "))."

    /// The mode spelled `text`.
    ///
    /// - Throws: `ConfigurationError` naming `key`, with the closest mode when there is one.
    package init(configurationText text: String, key: String) throws {
        if let type = AWSAuthorizationType(rawValue: text) {
            self = type
            return
        }
        var message = "\(key) is '\(text)', which is not an authorization type."
        if let suggestion = Self.closest(to: text) {
            message += " Did you mean '\(suggestion.rawValue)'?"
        }
        throw ConfigurationError("\(message) \(Self.fix)")
    }

    /// The mode that `text` most likely misspells.
    private static func closest(to text: String) -> AWSAuthorizationType? {
        func letters(_ text: String) -> [Character] {
            Array(text.uppercased().filter { $0.isLetter })
        }
        let typed = letters(text)
        let scored = allCases.map { type in (type, editDistance(typed, letters(type.rawValue))) }
        guard let best = scored.min(by: { $0.1 < $1.1 }), best.1 <= max(2, typed.count / 3) else { return nil }
        return best.0
    }

    private static func editDistance(_ lhs: [Character], _ rhs: [Character]) -> Int {
        var previous = Array(0...rhs.count)
        for (i, left) in lhs.enumerated() {
            var current = [i + 1]
            for (j, right) in rhs.enumerated() {
                current.append(min(previous[j + 1] + 1, current[j] + 1, previous[j] + (left == right ? 0 : 1)))
            }
            previous = current
        }
        return previous[rhs.count]
    }
}

extension JSONValue {
    /// The value as compact JSON with sorted keys, to quote it in an error.
    package var configurationText: String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        guard let data = try? encoder.encode(self) else { return "\(self)" }
        return String(decoding: data, as: UTF8.self)
    }
}
