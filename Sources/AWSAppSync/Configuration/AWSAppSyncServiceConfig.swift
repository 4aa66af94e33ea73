import AWSPluginsCore
import AWSWire
import Amplify
import Foundation

/// One AppSync API as `awsconfiguration.json` describes it under `AppSync.<key>`: its URL,
/// region, authorization mode, API key and database prefix.
///
/// ```json
/// {
///   "AppSync": {
///     "Default": {
///       "ApiUrl": "https://xyz.appsync-api.us-west-2.amazonaws.com/graphql",
///       "Region": "us-west-2",
///       "AuthMode": "API_KEY",
///       "ApiKey": "da2-xyz",
///       "ClientDatabasePrefix": "friendly_name_API_KEY"
///     }
///   }
/// }
/// ```
///
/// ```swift
/// let serviceConfig = try AWSAppSyncServiceConfig()                                 // AppSync.Default
/// let iamConfig = try AWSAppSyncServiceConfig(forKey: "friendly_name_AWS_IAM")
/// ```
///
/// Without a file argument the configuration is read from `awsconfiguration.json` in the
/// working directory, which `stratus serve` writes.
public struct AWSAppSyncServiceConfig: Sendable, Hashable {
    /// The key of the entry read when none is given.
    public static let defaultKey = "Default"

    /// The entry's key under `AppSync`.
    public let key: String
    /// The GraphQL endpoint (`ApiUrl`).
    public let endpoint: URL
    /// The region requests are signed for (`Region`).
    public let region: String
    /// The authorization mode (`AuthMode`).
    public let authType: AWSAuthorizationType
    /// The API key sent with `API_KEY` (`ApiKey`).
    public let apiKey: String?
    /// The prefix of the cache's database files (`ClientDatabasePrefix`), `^[_a-zA-Z0-9]+$`.
    public let clientDatabasePrefix: String?
    /// The identity pool of the file's `CredentialsProvider.CognitoIdentity.Default`, whose
    /// credentials an `AWS_IAM` client signs with when it is given no `credentialsProvider`.
    public var cognitoIdentity: CognitoIdentity?

    /// A Cognito identity pool, as `CredentialsProvider.CognitoIdentity.Default` describes it.
    public struct CognitoIdentity: Sendable, Hashable {
        /// The pool's id (`PoolId`), such as `us-east-1:…`.
        public let poolId: String
        /// The pool's region (`Region`).
        public let region: String
        /// Where the pool's service answers (`Endpoint`, written by `stratus serve`); AWS when `nil`.
        public let endpoint: URL?

        /// An identity pool given field by field.
        public init(poolId: String, region: String, endpoint: URL? = nil) {
            self.poolId = poolId
            self.region = region
            self.endpoint = endpoint
        }
    }

    /// A configuration given field by field.
    public init(
        endpoint: URL,
        region: String,
        authType: AWSAuthorizationType,
        apiKey: String? = nil,
        clientDatabasePrefix: String? = nil,
        key: String = AWSAppSyncServiceConfig.defaultKey,
        cognitoIdentity: CognitoIdentity? = nil
    ) {
        self.key = key
        self.endpoint = endpoint
        self.region = region
        self.authType = authType
        self.apiKey = apiKey
        self.clientDatabasePrefix = clientDatabasePrefix
        self.cognitoIdentity = cognitoIdentity
    }

    /// Reads `AppSync.<key>` from `awsconfiguration.json` in the working directory.
    ///
    /// - Throws: ``AWSAppSyncClientError`` (``AWSAppSyncClientError/Code/configuration``) when
    ///   the file is missing or is not JSON, or the entry lacks a key or has a wrong one; the
    ///   message names the key and the fix.
    public init(forKey key: String? = nil) throws {
        let url = URL(fileURLWithPath: FileManager.default.currentDirectoryPath)
            .appendingPathComponent("awsconfiguration.json")
        try self.init(forKey: key, configurationFile: url)
    }

    /// Reads `AppSync.<key>` from the `awsconfiguration.json` at `url`.
    ///
    /// - Throws: ``AWSAppSyncClientError`` naming the file or the key at fault.
    public init(forKey key: String? = nil, configurationFile url: URL) throws {
        let data: Data
        do {
            data = try Data(contentsOf: url)
        } catch {
            throw AWSAppSyncClientError(
                .configuration,
                "Cannot read awsconfiguration.json at '\(url.path)'. Run `stratus serve` (which writes it) "
                    + "in this directory, download it from the AppSync console, or pass its path with "
                    + "AWSAppSyncServiceConfig(forKey:configurationFile:)."
            )
        }
        let json: JSONValue
        do {
            json = try JSONValue(parsing: data)
        } catch {
            throw AWSAppSyncClientError(
                .configuration,
                "awsconfiguration.json at '\(url.path)' is not JSON: \(sentence: error) Fix its syntax."
            )
        }
        try self.init(awsConfiguration: json, forKey: key)
    }

    /// Reads `AppSync.<key>` from the contents of an `awsconfiguration.json`, with the identity
    /// pool of its `CredentialsProvider` section when it has one.
    ///
    /// - Throws: ``AWSAppSyncClientError`` naming the key at fault and the fix.
    public init(awsConfiguration json: JSONValue, forKey key: String? = nil) throws {
        let key = key ?? Self.defaultKey
        do {
            let root = try ConfigurationObject(
                json,
                path: "awsconfiguration.json",
                expected: "Download it again from the AppSync console."
            )
            let example =
                #"{"ApiUrl": "https://<id>.appsync-api.<region>.amazonaws.com/graphql", "Region": "us-east-1", "AuthMode": "API_KEY", "ApiKey": "<key>"}"#
            guard let section = root.members["AppSync"], !section.isNull else {
                throw ConfigurationError(
                    "AppSync is missing from awsconfiguration.json. Add it: {\"AppSync\": {\"\(key)\": \(example)}}."
                )
            }
            let clients = try ConfigurationObject(
                section,
                path: "AppSync",
                expected: "Give it one object per client, keyed by name."
            )
            guard let entry = clients.members[key] else {
                let known = clients.members.keys.sorted().map { "'\($0)'" }.joined(separator: ", ")
                throw ConfigurationError(
                    "AppSync.\(key) is missing from awsconfiguration.json"
                        + (known.isEmpty ? "" : " (it has \(known))")
                        + ". Add it, such as \(example), or pass one of the keys it has to forKey:."
                )
            }
            let client = try ConfigurationObject(
                entry,
                path: clients.name(key),
                expected: "Give it ApiUrl, Region and AuthMode, such as \(example)."
            )
            let prefix = try client.optionalString(
                "ClientDatabasePrefix",
                fix: "Use letters, digits and underscores only, such as \"myapi_\(key)\"."
            )
            if let prefix, prefix.contains(where: { !($0.isASCII && ($0.isLetter || $0.isNumber || $0 == "_")) }) {
                throw ConfigurationError(
                    "\(client.name("ClientDatabasePrefix")) is '\(prefix)', which does not match ^[_a-zA-Z0-9]+$. "
                        + "Use letters, digits and underscores only."
                )
            }
            self.init(
                endpoint: try client.url("ApiUrl", fix: "Set it to the API's GraphQL URL, ending in /graphql."),
                region: try client.string("Region", fix: "Set it to the API's region, such as \"us-east-1\"."),
                authType: try client.authorizationType("AuthMode"),
                apiKey: try client.optionalString("ApiKey", fix: "Set it to the API key, such as \"da2-…\"."),
                clientDatabasePrefix: prefix,
                key: key,
                cognitoIdentity: try Self.cognitoIdentity(in: root)
            )
        } catch let error as ConfigurationError {
            throw AWSAppSyncClientError(.configuration, error.message)
        }
    }
}

extension AWSAppSyncServiceConfig {
    /// The identity pool at `CredentialsProvider.CognitoIdentity.Default`; `nil` without one.
    fileprivate static func cognitoIdentity(in root: ConfigurationObject) throws -> CognitoIdentity? {
        guard let section = root.members["CredentialsProvider"], !section.isNull else { return nil }
        let example = #"{"PoolId": "us-east-1:<id>", "Region": "us-east-1"}"#
        let provider = try ConfigurationObject(
            section,
            path: "CredentialsProvider",
            expected: "Write it as {\"CognitoIdentity\": {\"Default\": \(example)}}."
        )
        guard let identity = provider.members["CognitoIdentity"], !identity.isNull else { return nil }
        let pools = try ConfigurationObject(
            identity,
            path: provider.name("CognitoIdentity"),
            expected: "Write it as {\"Default\": \(example)}."
        )
        guard let entry = pools.members["Default"], !entry.isNull else { return nil }
        let pool = try ConfigurationObject(entry, path: pools.name("Default"), expected: "Write it as \(example).")
        var endpoint: URL?
        if let value = pool.members["Endpoint"], !value.isNull {
            endpoint = try pool.url("Endpoint", fix: "Set it to the identity pool's URL, or remove it for AWS.")
        }
        return CognitoIdentity(
            poolId: try pool.string("PoolId", fix: "Set it to the identity pool's id, such as \"us-east-1:<id>\"."),
            region: try pool.string("Region", fix: "Set it to the identity pool's region, such as \"us-east-1\"."),
            endpoint: endpoint
        )
    }
}

/// The configuration of one AppSync API read from `awsconfiguration.json`: the name the
/// AppSync client's first releases gave ``AWSAppSyncServiceConfig``.
///
/// ```swift
/// let appSyncConfig = try AWSAppSyncClientConfiguration(appSyncClientInfo: AWSAppSyncClientInfo(), databaseURL: url)
/// ```
public typealias AWSAppSyncClientInfo = AWSAppSyncServiceConfig
