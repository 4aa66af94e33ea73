import AWSPluginsCore
import Amplify
import Foundation
import StratusServer
import Testing

@testable import AWSAppSync

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// `awsconfiguration.json`, the cache files and the auth providers, as the AppSync guide
/// configures them.
@Suite struct ClientConfigurationTests {
    /// A temporary directory, removed by the caller.
    static func makeDirectory() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("appsync-config-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    /// The guide's multi-auth file.
    static let multiAuth: JSONValue = [
        "Version": "1.0",
        "AppSync": [
            "Default": [
                "ApiUrl": "https://xyz.us-west-2.amazonaws.com/graphql",
                "Region": "us-west-2",
                "AuthMode": "API_KEY",
                "ApiKey": "da2-xyz",
                "ClientDatabasePrefix": "friendly_name_API_KEY",
            ],
            "friendly_name_AWS_IAM": [
                "ApiUrl": "https://xyz.us-west-2.amazonaws.com/graphql",
                "Region": "us-west-2",
                "AuthMode": "AWS_IAM",
                "ClientDatabasePrefix": "friendly_name_AWS_IAM",
            ],
            "friendly_name_AMAZON_COGNITO_USER_POOLS": [
                "ApiUrl": "https://xyz.us-west-2.amazonaws.com/graphql",
                "Region": "us-west-2",
                "AuthMode": "AMAZON_COGNITO_USER_POOLS",
                "ClientDatabasePrefix": "friendly_name_AMAZON_COGNITO_USER_POOLS",
            ],
        ],
    ]

    @Test func theFileStratusServeWritesIsRead() throws {
        let directory = try Self.makeDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        try ClientConfigurationFiles(
            endpoint: URL(string: "http://127.0.0.1:20002/graphql")!,
            authorizationMode: .apiKey,
            apiKey: "da2-local",
            apiName: "todos"
        ).write(to: directory)

        let config = try AWSAppSyncServiceConfig(
            configurationFile: directory.appendingPathComponent("awsconfiguration.json")
        )
        #expect(config.key == "Default")
        #expect(config.endpoint.absoluteString == "http://127.0.0.1:20002/graphql")
        #expect(config.region == "us-east-1")
        #expect(config.authType == .apiKey)
        #expect(config.apiKey == "da2-local")
        #expect(config.clientDatabasePrefix == "todos_API_KEY")
    }

    @Test func eachKeyOfTheMultiAuthFileIsAClient() throws {
        let iam = try AWSAppSyncClientInfo(awsConfiguration: Self.multiAuth, forKey: "friendly_name_AWS_IAM")
        #expect(iam.authType == .awsIAM)
        #expect(iam.apiKey == nil)
        #expect(iam.clientDatabasePrefix == "friendly_name_AWS_IAM")
        let pools = try AWSAppSyncServiceConfig(
            awsConfiguration: Self.multiAuth,
            forKey: "friendly_name_AMAZON_COGNITO_USER_POOLS"
        )
        #expect(pools.authType == .amazonCognitoUserPools)
    }

    @Test func aMissingKeyIsNamedWithTheKeysTheFileHas() throws {
        let error = #expect(throws: AWSAppSyncClientError.self) {
            try AWSAppSyncServiceConfig(awsConfiguration: Self.multiAuth, forKey: "friendly_name_OPENID_CONNECT")
        }
        #expect(error?.code == .configuration)
        #expect(
            error?.message
                == "AppSync.friendly_name_OPENID_CONNECT is missing from awsconfiguration.json (it has 'Default', "
                + "'friendly_name_AMAZON_COGNITO_USER_POOLS', 'friendly_name_AWS_IAM'). Add it, such as "
                + #"{"ApiUrl": "https://<id>.appsync-api.<region>.amazonaws.com/graphql", "Region": "us-east-1", "#
                + #""AuthMode": "API_KEY", "ApiKey": "<key>"}, or pass one of the keys it has to forKey:."#
        )
    }

    @Test func aWrongAuthModeIsNamedWithTheClosestMode() throws {
        let json: JSONValue = [
            "AppSync": [
                "Default": ["ApiUrl": "https://x.example/graphql", "Region": "us-east-1", "AuthMode": "API_KY"]
            ]
        ]
        let error = #expect(throws: AWSAppSyncClientError.self) {
            try AWSAppSyncServiceConfig(awsConfiguration: json)
        }
        #expect(
            error?.message
                == "AppSync.Default.AuthMode is 'API_KY', which is not an authorization type. Did you mean 'API_KEY'? "
                + "Set it to one of NONE, API_KEY, AWS_IAM, AMAZON_COGNITO_USER_POOLS, OPENID_CONNECT, AWS_LAMBDA."
        )
    }

    @Test func aMissingFileSaysHowToGetOne() throws {
        let directory = try Self.makeDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let url = directory.appendingPathComponent("awsconfiguration.json")
        let error = #expect(throws: AWSAppSyncClientError.self) {
            try AWSAppSyncServiceConfig(configurationFile: url)
        }
        #expect(
            error?.message
                == "Cannot read awsconfiguration.json at '\(url.path)'. Run `stratus serve` (which writes it) in this "
                + "directory, download it from the AppSync console, or pass its path with "
                + "AWSAppSyncServiceConfig(forKey:configurationFile:)."
        )
    }

    @Test func cacheFilesArePrefixedWithTheClientDatabasePrefix() throws {
        let directory = try Self.makeDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let serviceConfig = try AWSAppSyncServiceConfig(
            awsConfiguration: Self.multiAuth,
            forKey: "friendly_name_AWS_IAM"
        )
        let prefixed = try AWSAppSyncCacheConfiguration(
            useClientDatabasePrefix: true,
            appSyncServiceConfig: serviceConfig,
            rootDirectory: directory
        )
        #expect(prefixed.queries?.lastPathComponent == "friendly_name_AWS_IAM_queries.db")
        #expect(prefixed.offlineMutations?.lastPathComponent == "friendly_name_AWS_IAM_offlineMutations.db")
        #expect(
            prefixed.subscriptionMetadataCache?.lastPathComponent
                == "friendly_name_AWS_IAM_subscriptionMetadataCache.db"
        )
        #expect(prefixed.queries?.deletingLastPathComponent().path == directory.path)
        let plain = try AWSAppSyncCacheConfiguration(withRootDirectory: directory)
        #expect(plain.queries?.lastPathComponent == "queries.db")

        let withoutPrefix = AWSAppSyncServiceConfig(
            endpoint: URL(string: "https://x.example/graphql")!,
            region: "us-east-1",
            authType: .awsIAM,
            key: "private"
        )
        let error = #expect(throws: AWSAppSyncClientError.self) {
            try AWSAppSyncCacheConfiguration(useClientDatabasePrefix: true, appSyncServiceConfig: withoutPrefix)
        }
        #expect(
            error?.message
                == "useClientDatabasePrefix is true, but AppSync.private.ClientDatabasePrefix is missing from "
                + #"awsconfiguration.json. Add it, such as "ClientDatabasePrefix": "myapi_AWS_IAM", or pass "#
                + "useClientDatabasePrefix: false."
        )
    }

    @Test func theDefaultCacheDirectoryFollowsXDG() {
        #expect(
            AWSAppSyncCacheConfiguration.defaultDirectory(environment: [
                "XDG_CACHE_HOME": "/var/cache/me", "HOME": "/h",
            ])
            .path == "/var/cache/me/appsync"
        )
        #expect(
            AWSAppSyncCacheConfiguration.defaultDirectory(environment: ["HOME": "/home/me"]).path
                == "/home/me/.cache/appsync"
        )
        // A relative XDG_CACHE_HOME is ignored, as the XDG specification asks.
        #expect(
            AWSAppSyncCacheConfiguration.defaultDirectory(environment: ["XDG_CACHE_HOME": "cache", "HOME": "/home/me"])
                .path == "/home/me/.cache/appsync"
        )
    }

    @Test func eachAuthModeNeedsItsProvider() throws {
        let pools = try AWSAppSyncServiceConfig(
            awsConfiguration: Self.multiAuth,
            forKey: "friendly_name_AMAZON_COGNITO_USER_POOLS"
        )
        let error = #expect(throws: AWSAppSyncClientError.self) {
            try AWSAppSyncClientConfiguration(appSyncServiceConfig: pools)
        }
        #expect(
            error?.message
                == "AppSync.friendly_name_AMAZON_COGNITO_USER_POOLS.AuthMode is AMAZON_COGNITO_USER_POOLS, but no "
                + "userPoolsAuthProvider was given. Pass AWSAppSyncClientConfiguration(appSyncServiceConfig:, "
                + "userPoolsAuthProvider: an AWSCognitoUserPoolsAuthProvider, …), or change AuthMode."
        )
        let apiKey = AWSAppSyncServiceConfig(
            endpoint: URL(string: "https://x.example/graphql")!,
            region: "us-east-1",
            authType: .apiKey
        )
        let noKey = #expect(throws: AWSAppSyncClientError.self) {
            try AWSAppSyncClientConfiguration(appSyncClientInfo: apiKey, databaseURL: nil)
        }
        #expect(
            noKey?.message
                == "AppSync.Default.AuthMode is API_KEY, but AppSync.Default.ApiKey is missing from "
                + "awsconfiguration.json. Add the API key, or pass an apiKeyAuthProvider."
        )
    }

    @Test func providersAddTheirHeaders() async throws {
        let base = URLRequest(url: URL(string: "https://x.example/graphql")!)
        func config(_ mode: AWSAuthorizationType) -> AWSAppSyncServiceConfig {
            AWSAppSyncServiceConfig(
                endpoint: URL(string: "https://x.example/graphql")!,
                region: "us-east-1",
                authType: mode,
                apiKey: "da2-file"
            )
        }
        // The guide's asynchronous user pools provider.
        class MyCognitoUserPoolsAuthProvider: AWSCognitoUserPoolsAuthProviderAsync {
            func getLatestAuthToken(_ callback: @escaping (String?, Error?) -> Void) {
                callback("pool-token", nil)
            }
        }
        class MyOidcProvider: AWSOIDCAuthProvider {
            func getLatestAuthToken() -> String { "oidc-token" }
        }
        let pools = try AWSAppSyncClientConfiguration(
            appSyncServiceConfig: config(.amazonCognitoUserPools),
            userPoolsAuthProvider: MyCognitoUserPoolsAuthProvider()
        )
        #expect(
            try await pools.authorization.authorize(base).value(forHTTPHeaderField: "authorization") == "pool-token"
        )
        let oidc = try AWSAppSyncClientConfiguration(
            appSyncClientInfo: config(.openIDConnect),
            oidcAuthProvider: MyOidcProvider(),
            databaseURL: nil
        )
        #expect(try await oidc.authorization.authorize(base).value(forHTTPHeaderField: "authorization") == "oidc-token")
        let key = try AWSAppSyncClientConfiguration(appSyncServiceConfig: config(.apiKey))
        #expect(try await key.authorization.authorize(base).value(forHTTPHeaderField: "x-api-key") == "da2-file")

        class Failing: AWSCognitoUserPoolsAuthProviderAsync {
            struct SignedOut: Error, CustomStringConvertible {
                var description: String { "No user is signed in" }
            }
            func getLatestAuthToken(_ callback: @escaping (String?, Error?) -> Void) {
                callback(nil, SignedOut())
            }
        }
        let failing = try AWSAppSyncClientConfiguration(
            appSyncServiceConfig: config(.amazonCognitoUserPools),
            userPoolsAuthProvider: Failing()
        )
        let error = await #expect(throws: AWSAppSyncClientError.self) {
            try await failing.authorization.authorize(base)
        }
        #expect(error?.code == .authentication)
        #expect(
            error?.message
                == "The auth provider of AMAZON_COGNITO_USER_POOLS failed to return a token: No user is signed in. "
                + "Check that the user is signed in."
        )
    }

    @Test func twoLiveClientsOfDifferentModesCannotShareACacheFile() throws {
        let directory = try Self.makeDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let databaseURL = directory.appendingPathComponent("shared_queries.db")
        let apiKey = try AWSAppSyncServiceConfig(awsConfiguration: Self.multiAuth)
        let iam = try AWSAppSyncServiceConfig(awsConfiguration: Self.multiAuth, forKey: "friendly_name_AWS_IAM")
        let credentials = StaticCredentialsProvider(accessKeyId: "AKID", secretAccessKey: "secret")
        var first: AWSAppSyncClient? = try AWSAppSyncClient(
            appSyncConfig: AWSAppSyncClientConfiguration(appSyncClientInfo: apiKey, databaseURL: databaseURL)
        )
        // Another client of the same API and mode shares the query cache, with a queue of its own.
        var second: AWSAppSyncClient? = try AWSAppSyncClient(
            appSyncConfig: AWSAppSyncClientConfiguration(
                appSyncServiceConfig: apiKey,
                cacheConfiguration: AWSAppSyncCacheConfiguration(
                    offlineMutations: directory.appendingPathComponent("second_offlineMutations.db"),
                    queries: databaseURL,
                    subscriptionMetadataCache: nil
                )
            )
        )
        let iamConfig = try AWSAppSyncClientConfiguration(
            appSyncClientInfo: iam,
            credentialsProvider: credentials,
            databaseURL: databaseURL
        )
        let error = #expect(throws: AWSAppSyncClientError.self) {
            try AWSAppSyncClient(appSyncConfig: iamConfig)
        }
        #expect(
            error?.message
                == "The cache file '\(databaseURL.standardizedFileURL.path)' is in use by a live client of "
                + "AppSync.Default (API_KEY at https://xyz.us-west-2.amazonaws.com/graphql), so a client of "
                + "AppSync.friendly_name_AWS_IAM (AWS_IAM at https://xyz.us-west-2.amazonaws.com/graphql) cannot use "
                + "it. Give each auth mode its own ClientDatabasePrefix and pass useClientDatabasePrefix: true, or "
                + "another databaseURL."
        )
        // The file is free once both API key clients are gone.
        first = nil
        #expect(throws: AWSAppSyncClientError.self) { try AWSAppSyncClient(appSyncConfig: iamConfig) }
        #expect(first == nil && second != nil)
        second = nil
        let iamClient = try AWSAppSyncClient(appSyncConfig: iamConfig)
        #expect(iamClient.configuration.appSyncServiceConfig.authType == .awsIAM)
    }

    @Test func twoLiveClientsCannotShareAnOfflineMutationQueue() throws {
        let directory = try Self.makeDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        // The seeds' configuration keeps the queue in the database file: a second client on the
        // same file would send every mutation the first queued.
        let databaseURL = directory.appendingPathComponent("database_name")
        let apiKey = try AWSAppSyncServiceConfig(awsConfiguration: Self.multiAuth)
        var first: AWSAppSyncClient? = try AWSAppSyncClient(
            appSyncConfig: AWSAppSyncClientConfiguration(appSyncClientInfo: apiKey, databaseURL: databaseURL)
        )
        let error = #expect(throws: AWSAppSyncClientError.self) {
            try AWSAppSyncClient(
                appSyncConfig: AWSAppSyncClientConfiguration(appSyncClientInfo: apiKey, databaseURL: databaseURL)
            )
        }
        #expect(error?.code == .configuration)
        #expect(
            error?.message
                == "The offline mutation queue '\(databaseURL.standardizedFileURL.path)' is in use by a live client "
                + "of AppSync.Default, which sends every mutation queued there: a second client on it would send each "
                + "one again. Use that client, or give this one its own databaseURL (or cache directory)."
        )
        // The same holds for a cache directory's offlineMutations.db.
        let cacheConfiguration = try AWSAppSyncCacheConfiguration(withRootDirectory: directory)
        let inDirectory = try AWSAppSyncClient(
            appSyncConfig: AWSAppSyncClientConfiguration(
                appSyncServiceConfig: apiKey,
                cacheConfiguration: cacheConfiguration
            )
        )
        #expect(throws: AWSAppSyncClientError.self) {
            try AWSAppSyncClient(
                appSyncConfig: AWSAppSyncClientConfiguration(
                    appSyncServiceConfig: apiKey,
                    cacheConfiguration: cacheConfiguration
                )
            )
        }
        // Once the first client is gone, its file is free.
        first = nil
        let reopened = try AWSAppSyncClient(
            appSyncConfig: AWSAppSyncClientConfiguration(appSyncClientInfo: apiKey, databaseURL: databaseURL)
        )
        #expect(first == nil)
        #expect(reopened.configuration.cacheConfiguration?.offlineMutations == databaseURL)
        #expect(
            inDirectory.configuration.cacheConfiguration?.offlineMutations?.lastPathComponent == "offlineMutations.db"
        )
    }
}
