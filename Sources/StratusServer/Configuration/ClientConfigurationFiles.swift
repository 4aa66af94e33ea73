import Foundation
import StratusCodegen

/// The configuration files clients read to reach the local backend: Amplify's
/// `amplifyconfiguration.json`, Amplify Gen 2's `amplify_outputs.json` and the AppSync
/// client's `awsconfiguration.json`.
public struct ClientConfigurationFiles: Sendable {
    /// The GraphQL endpoint, such as `http://127.0.0.1:20002/graphql`.
    public var endpoint: URL
    public var region: String
    /// The API's default authorization mode.
    public var authorizationMode: Identity.AuthorizationMode
    /// The API key clients send, when the default mode is `API_KEY`.
    public var apiKey: String?
    /// The API's name in `amplifyconfiguration.json`.
    public var apiName: String
    /// The API's additional authorization modes: each gets its own `AppSync` entry in
    /// `awsconfiguration.json`, as the AppSync console writes them for multi-auth clients.
    public var additionalModes: [Identity.AuthorizationMode] = []
    /// The API key clients send with `API_KEY`, when it is an additional mode.
    public var additionalAPIKey: String?
    /// REST APIs, written next to the GraphQL API with `endpointType: REST`.
    public var restAPIs: [RESTAPIEntry] = []

    /// A REST API as `amplifyconfiguration.json` lists it.
    public struct RESTAPIEntry: Sendable, Hashable {
        public var name: String
        /// `http://127.0.0.1:20002/rest/<name>`.
        public var endpoint: URL
        /// The mode of its routes (the first route's, when they differ).
        public var authorizationMode: Identity.AuthorizationMode

        public init(name: String, endpoint: URL, authorizationMode: Identity.AuthorizationMode) {
            self.name = name
            self.endpoint = endpoint
            self.authorizationMode = authorizationMode
        }

        /// The entry of `api`, served beside the GraphQL endpoint `graphQLEndpoint`.
        public init(_ api: RESTAPI, graphQLEndpoint: URL) {
            self.init(
                name: api.name,
                endpoint: api.endpoint(besides: graphQLEndpoint),
                authorizationMode: api.authorizationMode
            )
        }
    }

    /// The local Cognito whose pools the Auth category's section names; `nil` for none.
    public var cognito: CognitoEntry?

    /// The schema whose models `amplify_outputs.json` describes in `data.model_introspection`,
    /// which Gen 2 clients build their requests from; `nil` leaves it out.
    public var schema: AnnotatedSchema?

    public init(
        endpoint: URL,
        region: String = "us-east-1",
        authorizationMode: Identity.AuthorizationMode,
        apiKey: String?,
        apiName: String = "stratus"
    ) {
        self.endpoint = endpoint
        self.region = region
        self.authorizationMode = authorizationMode
        self.apiKey = apiKey
        self.apiName = apiName
    }

    /// `amplifyconfiguration.json`: `api.plugins.awsAPIPlugin.<apiName>`.
    public var amplifyConfiguration: JSON {
        var api: [(String, JSON)] = [
            ("endpointType", "GraphQL"),
            ("endpoint", .string(endpoint.absoluteString)),
            ("region", .string(region)),
            ("authorizationType", .string(authorizationMode.rawValue)),
        ]
        if let apiKey { api.append(("apiKey", .string(apiKey))) }
        var apis: [(String, JSON)] = [(apiName, .object(JSONObject(api)))]
        for rest in restAPIs {
            var entry: [(String, JSON)] = [
                ("endpointType", "REST"),
                ("endpoint", .string(rest.endpoint.absoluteString)),
                ("region", .string(region)),
                ("authorizationType", .string(rest.authorizationMode.rawValue)),
            ]
            if rest.authorizationMode == .apiKey, let apiKey { entry.append(("apiKey", .string(apiKey))) }
            apis.append((rest.name, .object(JSONObject(entry))))
        }
        var configuration: JSONObject = [
            "UserAgent": "stratus/1.0",
            "Version": "1.0",
            "api": ["plugins": ["awsAPIPlugin": .object(JSONObject(apis))]],
        ]
        if let cognito {
            configuration["auth"] = ["plugins": ["awsCognitoAuthPlugin": .object(cognito.pluginSection)]]
        }
        return .object(configuration)
    }

    /// `awsconfiguration.json`: `AppSync.Default` for the default mode, and one entry
    /// `<apiName>_<MODE>` per additional mode, each with its `ClientDatabasePrefix`.
    public var awsConfiguration: JSON {
        func entry(_ mode: Identity.AuthorizationMode, apiKey: String?) -> JSON {
            var appSync: [(String, JSON)] = [
                ("ApiUrl", .string(endpoint.absoluteString)),
                ("Region", .string(region)),
                ("AuthMode", .string(mode.rawValue)),
            ]
            if mode == .apiKey, let apiKey { appSync.append(("ApiKey", .string(apiKey))) }
            appSync.append(("ClientDatabasePrefix", .string("\(apiName)_\(mode.rawValue)")))
            return .object(JSONObject(appSync))
        }
        var clients: [(String, JSON)] = [("Default", entry(authorizationMode, apiKey: apiKey))]
        for mode in additionalModes where mode != authorizationMode {
            clients.append(("\(apiName)_\(mode.rawValue)", entry(mode, apiKey: additionalAPIKey)))
        }
        var configuration: JSONObject = ["Version": "1.0", "AppSync": .object(JSONObject(clients))]
        if let cognito {
            for (key, value) in cognito.pluginSection where key != "UserAgent" && key != "Version" {
                configuration[key] = value
            }
        }
        return .object(configuration)
    }

    /// `amplify_outputs.json`, version 1 of Amplify Gen 2's outputs: `data` (`url`,
    /// `aws_region`, `api_key`, `default_authorization_type`, the additional
    /// `authorization_types` and `model_introspection`) and, with the local Cognito, `auth`
    /// (`user_pool_id`, `user_pool_client_id`, `identity_pool_id`, `aws_region`).
    ///
    /// The local Cognito's origin is in `auth.user_pool_endpoint` and
    /// `auth.identity_pool_endpoint`, as `Endpoint` is in the pools' sections of the other
    /// files: clients that do not know the keys ignore them and call AWS.
    public var amplifyOutputs: JSON {
        var data: JSONObject = [
            "url": .string(endpoint.absoluteString),
            "aws_region": .string(region),
        ]
        let key = authorizationMode == .apiKey ? apiKey : additionalAPIKey
        if let key { data["api_key"] = .string(key) }
        data["default_authorization_type"] = .string(authorizationMode.rawValue)
        data["authorization_types"] = .array(
            additionalModes.filter { $0 != authorizationMode }.map { .string($0.rawValue) }
        )
        if let schema { data["model_introspection"] = ModelIntrospection.json(of: schema) }
        var outputs: JSONObject = ["version": "1"]
        if let cognito {
            var auth: JSONObject = [
                "aws_region": .string(cognito.region),
                "user_pool_id": .string(cognito.userPoolId),
                "user_pool_client_id": .string(cognito.appClientId),
                "user_pool_endpoint": .string(cognito.endpoint.absoluteString),
            ]
            if let identityPoolId = cognito.identityPoolId {
                auth["identity_pool_id"] = .string(identityPoolId)
                auth["identity_pool_endpoint"] = .string(cognito.endpoint.absoluteString)
            }
            outputs["auth"] = .object(auth)
        }
        outputs["data"] = .object(data)
        return .object(outputs)
    }

    /// Writes `amplifyconfiguration.json`, `amplify_outputs.json` and `awsconfiguration.json`
    /// into `directory`.
    ///
    /// - Throws: when a file cannot be written.
    public func write(to directory: URL) throws {
        try Data(amplifyOutputs.text.utf8).write(
            to: directory.appending(path: "amplify_outputs.json"),
            options: .atomic
        )
        try Data(amplifyConfiguration.text.utf8).write(
            to: directory.appending(path: "amplifyconfiguration.json"),
            options: .atomic
        )
        try Data(awsConfiguration.text.utf8).write(
            to: directory.appending(path: "awsconfiguration.json"),
            options: .atomic
        )
    }
}

extension ClientConfigurationFiles {
    /// The local Cognito as clients configure it: the user pool, its app client, the identity
    /// pool, and the origin both answer at.
    public struct CognitoEntry: Sendable, Hashable {
        /// The user pool id, `PoolId`.
        public var userPoolId: String
        /// The app client clients sign in through, `AppClientId`.
        public var appClientId: String
        /// That client's secret, when it has one.
        public var appClientSecret: String?
        /// The identity pool id, when there is one.
        public var identityPoolId: String?
        /// The pools' region.
        public var region: String
        /// `http://127.0.0.1:<port>`.
        public var endpoint: URL

        /// An entry of each value.
        public init(
            userPoolId: String,
            appClientId: String,
            appClientSecret: String? = nil,
            identityPoolId: String?,
            region: String,
            endpoint: URL
        ) {
            self.userPoolId = userPoolId
            self.appClientId = appClientId
            self.appClientSecret = appClientSecret
            self.identityPoolId = identityPoolId
            self.region = region
            self.endpoint = endpoint
        }

        /// `awsCognitoAuthPlugin`'s section: `CognitoUserPool.Default`,
        /// `CredentialsProvider.CognitoIdentity.Default` (with `Endpoint`) and `Auth.Default`.
        var pluginSection: JSONObject {
            var pool: JSONObject = [
                "PoolId": .string(userPoolId),
                "AppClientId": .string(appClientId),
                "Region": .string(region),
                "Endpoint": .string(endpoint.absoluteString),
            ]
            if let appClientSecret { pool["AppClientSecret"] = .string(appClientSecret) }
            var section: JSONObject = ["UserAgent": "stratus/1.0", "Version": "1.0"]
            section["CognitoUserPool"] = ["Default": .object(pool)]
            if let identityPoolId {
                section["CredentialsProvider"] = [
                    "CognitoIdentity": [
                        "Default": [
                            "PoolId": .string(identityPoolId),
                            "Region": .string(region),
                            "Endpoint": .string(endpoint.absoluteString),
                        ]
                    ]
                ]
            }
            section["Auth"] = ["Default": ["authenticationFlowType": "USER_SRP_AUTH"]]
            return section
        }
    }
}
