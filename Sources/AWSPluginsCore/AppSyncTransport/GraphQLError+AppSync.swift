import Amplify

extension GraphQLError {
    /// The members of an error that the GraphQL specification names; every other member is
    /// AppSync's and goes to `extensions` as well.
    private static let specifiedMembers: Set<String> = ["message", "locations", "path", "extensions"]
    /// AppSync's members that are also read into properties of their own.
    private static let appSyncMembers = ["errorType", "errorInfo", "data"]

    /// Reads one entry of a response's `errors`: the one reader of AppSync's errors, used by the
    /// API plugin, the AppSync client, DataStore and the real-time client alike.
    ///
    /// AppSync writes its extras beside `message` (`{"message":…,"errorType":…,"errorInfo":…,
    /// "data":…}`), while other GraphQL servers, and AppSync's JavaScript resolvers through
    /// `util.error`'s `extensions`, put them under `extensions`. Either way the error reads the
    /// same:
    /// - `message`, `locations` and `path` as sent;
    /// - `errorType`, `errorInfo` and `data` from
    ///   the error itself, or, when absent or null there, from its `extensions`;
    /// - `extensions` as sent, plus every member beside `message` that the
    ///   GraphQL specification does not name, and `errorType`, `errorInfo` and `data` with the
    ///   values of the properties (when not null): Amplify's shape, for code that reads
    ///   `extensions?["errorType"]`. So `errorType` and `extensions?["errorType"]` never differ.
    ///
    /// ```swift
    /// let error = try GraphQLError(appSyncError: ["message": "Conflict", "errorType": "ConflictUnhandled",
    ///                                             "data": ["id": "1", "_version": 3]], at: ["errors", "0"])
    /// error.errorType                 // "ConflictUnhandled"
    /// error.extensions?["errorType"]  // "ConflictUnhandled"
    /// ```
    ///
    /// - Parameters:
    ///   - entry: The entry.
    ///   - path: Where the entry is in the response, for the error's message.
    /// - Throws: ``GraphQLResponseBodyError`` at the member at fault when the entry is not an
    ///   object, has no string `message`, or a member has the wrong type (`locations` not a list
    ///   of `{line, column}`, `path` not a list, `extensions` not an object, `errorType` not a
    ///   string).
    public init(appSyncError entry: JSONValue, at path: [String]) throws(GraphQLResponseBodyError) {
        guard case .object(let object) = entry else {
            throw .wrongType(entry, expected: "an object", at: path)
        }
        guard case .string(let message)? = object["message"] else {
            throw .wrongType(object["message"] ?? .null, expected: "String", at: path + ["message"])
        }
        var extensions: [String: JSONValue]?
        switch object["extensions"] {
        case .none, .null?: extensions = nil
        case .object(let members)?: extensions = members
        case let other?: throw .wrongType(other, expected: "an object", at: path + ["extensions"])
        }
        func member(_ key: String) -> JSONValue? {
            if let value = object[key], !value.isNull { return value }
            if let value = extensions?[key], !value.isNull { return value }
            return nil
        }
        var errorType: String?
        switch member("errorType") {
        case .none: errorType = nil
        case .string(let type)?: errorType = type
        case let other?:
            let at = object["errorType"].map { _ in ["errorType"] } ?? ["extensions", "errorType"]
            throw .wrongType(other, expected: "String", at: path + at)
        }
        self.init(
            message: message,
            locations: try Self.locations(object["locations"], at: path + ["locations"]),
            path: try Self.path(object["path"], at: path + ["path"]),
            extensions: nil,
            errorType: errorType,
            errorInfo: member("errorInfo"),
            data: member("data")
        )
        var merged = extensions ?? [:]
        for (key, value) in object where !Self.specifiedMembers.contains(key) { merged[key] = value }
        for key in Self.appSyncMembers { merged[key] = member(key) }
        self.extensions = merged.isEmpty ? nil : merged
    }

    /// Reads a response's `errors`: `nil` when absent or null.
    ///
    /// - Throws: ``GraphQLResponseBodyError`` when `errors` is not a list, or an entry is not a
    ///   GraphQL error (see ``init(appSyncError:at:)``).
    public static func appSyncErrors(_ value: JSONValue?) throws(GraphQLResponseBodyError) -> [GraphQLError]? {
        switch value {
        case .none, .null?:
            return nil
        case .array(let entries)?:
            var errors: [GraphQLError] = []
            errors.reserveCapacity(entries.count)
            for (index, entry) in entries.enumerated() {
                errors.append(try GraphQLError(appSyncError: entry, at: ["errors", String(index)]))
            }
            return errors
        case let other?:
            throw .wrongType(other, expected: "a list", at: ["errors"])
        }
    }

    private static func locations(
        _ value: JSONValue?,
        at path: [String]
    ) throws(GraphQLResponseBodyError)
        -> [Location]?
    {
        switch value {
        case .none, .null?:
            return nil
        case .array(let entries)?:
            var locations: [Location] = []
            for (index, entry) in entries.enumerated() {
                let at = path + [String(index)]
                guard case .object(let members) = entry else { throw .wrongType(entry, expected: "an object", at: at) }
                guard let line = members["line"]?.intValue else {
                    throw .wrongType(members["line"] ?? .null, expected: "Int", at: at + ["line"])
                }
                guard let column = members["column"]?.intValue else {
                    throw .wrongType(members["column"] ?? .null, expected: "Int", at: at + ["column"])
                }
                locations.append(Location(line: line, column: column))
            }
            return locations
        case let other?:
            throw .wrongType(other, expected: "a list", at: path)
        }
    }

    private static func path(_ value: JSONValue?, at path: [String]) throws(GraphQLResponseBodyError) -> [JSONValue]? {
        switch value {
        case .none, .null?: return nil
        case .array(let elements)?: return elements
        case let other?: throw .wrongType(other, expected: "a list", at: path)
        }
    }
}
