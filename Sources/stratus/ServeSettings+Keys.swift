import StratusCodegen
import StratusServer

extension ServeSettings {
    /// What an object of the configuration file may hold: the members it knows, or a map whose
    /// own keys are names (of models, functions, resolvers).
    indirect enum Shape: Sendable {
        /// An object of these members; `nil` for a member whose value is not checked further.
        case object([(String, Shape?)])
        /// An object keyed by names the user chooses, each value of this shape.
        case map(Shape?)
        /// A list of values of this shape.
        case list(Shape)
    }

    /// The shape of the whole file, as ``init(from:)`` reads it.
    static let fileShape = Shape.object([
        ("region", nil), ("database", nil), ("databaseConnections", nil),
        (
            "authorization",
            .object([
                ("defaultMode", nil), ("additionalModes", nil),
                ("apiKeys", .list(.object([("value", nil), ("expires", nil)]))),
                (
                    "iamCredentials",
                    .list(.object([("accessKeyId", nil), ("secretAccessKey", nil), ("sessionToken", nil)]))
                ),
                (
                    "userPool",
                    .object([
                        ("userPoolId", nil), ("region", nil), ("appIdClientRegex", nil), ("issuer", nil),
                        ("jwksUrl", nil), ("jwksFile", nil),
                    ])
                ),
                (
                    "openIDConnect",
                    .object([
                        ("issuer", nil), ("clientId", nil), ("iatTTL", nil), ("authTTL", nil), ("jwksUrl", nil),
                        ("jwksFile", nil), ("local", nil),
                    ])
                ),
                ("lambdaAuthorizer", .object([("function", nil)])),
            ])
        ),
        ("conflictDetection", nil), ("conflictResolution", nil), ("conflictHandler", conflictHandlerShape),
        (
            "models",
            .map(
                .object([
                    ("conflictDetection", nil), ("conflictResolution", nil), ("conflictHandler", conflictHandlerShape),
                ])
            )
        ),
        ("maxRequestBytes", nil), ("queryDepthLimit", nil), ("resolverCountLimit", nil),
        ("idempotencyKeyTTLSeconds", nil), ("deltaSyncTTLSeconds", nil), ("tombstoneTTLSeconds", nil),
        ("executionTimeoutSeconds", nil), ("requestHeadTimeoutSeconds", nil),
        ("requestTimeoutSeconds", nil), ("idleTimeoutSeconds", nil), ("maxConnectionsPerAddress", nil),
        ("maxConnections", nil), ("shutdownTimeoutSeconds", nil), ("allowedHosts", nil),
        (
            "rest",
            .list(
                .object([
                    ("name", nil), ("cors", nil),
                    (
                        "routes",
                        .list(
                            .object([
                                ("path", nil), ("methods", nil), ("authorization", nil),
                                ("handler", .object([("command", nil), ("timeoutSeconds", nil)])),
                            ])
                        )
                    ),
                ])
            )
        ),
        (
            "auth",
            .object([
                ("region", nil), ("userPoolId", nil), ("publicOrigin", nil),
                (
                    "clients",
                    .list(
                        .object([
                            ("clientId", nil), ("clientSecret", nil), ("readAttributes", nil),
                            ("writeAttributes", nil),
                        ])
                    )
                ),
                (
                    "passwordPolicy",
                    .object([
                        ("minimumLength", nil), ("requireLowercase", nil), ("requireUppercase", nil),
                        ("requireNumbers", nil), ("requireSymbols", nil),
                    ])
                ),
                ("groups", nil),
                (
                    "users",
                    .list(.object([("username", nil), ("password", nil), ("attributes", nil), ("groups", nil)]))
                ),
                ("tokenLifetimeSeconds", nil), ("refreshTokenLifetimeSeconds", nil), ("rotateRefreshTokens", nil),
                ("autoConfirmSignUp", nil), ("identityPoolId", nil), ("allowGuests", nil), ("accountId", nil),
                ("authRoleName", nil), ("unauthRoleName", nil),
                ("usernameAttributes", nil), ("maxFailedSignIns", nil), ("lockoutSeconds", nil),
                ("maxLockoutSeconds", nil), ("requestsPerClient", .object([("burst", nil), ("perSecond", nil)])),
            ])
        ),
        ("environment", nil),
        // Each function's members are checked where functions are read.
        ("functions", .map(nil)),
        ("resolvers", .map(.object([("function", nil), ("batchSize", nil), ("dataSource", nil), ("http", nil)]))),
        ("httpOrigins", nil), ("httpTimeoutSeconds", nil),
    ])

    private static let conflictHandlerShape = Shape.object([("command", nil), ("timeoutSeconds", nil)])

    /// The first member of `file`, in the file's order, that no object of its kind holds: a
    /// misspelt key would otherwise be ignored, and its setting silently left at the default.
    ///
    /// - Throws: ``CommandFailure`` naming the key, where it is, and the key meant: the closest
    ///   of its object's, or one of another object (`apiKeys` belongs in `authorization`).
    static func checkKeys(of file: JSON) throws {
        try check(file, against: fileShape, at: [])
    }

    private static func check(_ value: JSON, against shape: Shape, at path: [String]) throws {
        switch (shape, value) {
        case (.object(let members), .object(let object)):
            for (key, member) in object {
                guard let known = members.first(where: { $0.0 == key }) else {
                    throw CommandFailure(unknownKey(key, at: path, known: members.map(\.0)))
                }
                if let shape = known.1 { try check(member, against: shape, at: path + [key]) }
            }
        case (.map(let shape?), .object(let object)):
            for (key, member) in object { try check(member, against: shape, at: path + [key]) }
        case (.list(let shape), .array(let elements)):
            for (index, element) in elements.enumerated() {
                try check(element, against: shape, at: path.dropLast() + ["\(path.last ?? "")[\(index)]"])
            }
        default:
            // Another kind of value than the shape's: the decoder names the type it expected.
            break
        }
    }

    /// The refusal of `key` in the object at `path`, suggesting the key meant.
    private static func unknownKey(_ key: String, at path: [String], known: [String]) -> String {
        let place = path.isEmpty ? "The configuration file" : path.joined(separator: ".")
        let problem =
            path.isEmpty
            ? "\(place) has the unknown key '\(key)' at its top level."
            : "\(place) has the unknown key '\(key)' in the configuration file."
        if let meant = closestMatch(to: key, in: known) { return problem + " Did you mean '\(meant)'?" }
        if let found = keyElsewhere(key) {
            let under = found.place.isEmpty ? "at the top level" : "in \(found.place)"
            return problem
                + (found.key == key
                    ? " It belongs \(under)." : " Did you mean '\(found.key)', which belongs \(under)?")
        }
        return problem + " Use " + known.joined(separator: ", ") + "."
    }

    /// The closest key to `key` in any object of fixed place in the file, with that place.
    private static func keyElsewhere(_ key: String) -> (place: String, key: String)? {
        var places: [(String, String)] = []
        func collect(_ shape: Shape, at path: String) {
            guard case .object(let members) = shape else { return }
            for (name, member) in members {
                places.append((path, name))
                if let member { collect(member, at: path.isEmpty ? name : "\(path).\(name)") }
            }
        }
        collect(fileShape, at: "")
        guard let meant = closestMatch(to: key, in: places.map(\.1)) else { return nil }
        return places.first { $0.1 == meant }.map { (place: $0.0, key: $0.1) }
    }
}
