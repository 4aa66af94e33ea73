import AWSWire
import Amplify
import Foundation

/// The APIs the plugin sends to, by name.
///
/// `Amplify.configure()` builds it from `amplifyconfiguration.json`
/// (`api.plugins.awsAPIPlugin`), from a Gen2 `amplify_outputs.json` (`data`) or from an
/// `awsconfiguration.json` (`AppSync`). Build it yourself to configure the plugin without a file,
/// for example to point it at a local backend:
///
/// ```swift
/// let configuration = AWSAPIPluginConfiguration(endpoints: [
///     .init(
///         name: "local",
///         endpointType: .graphQL,
///         endpoint: URL(string: "http://127.0.0.1:\(port)/graphql")!,
///         region: "us-east-1",
///         authorizationType: .apiKey,
///         apiKey: "da2-local"
///     )
/// ])
/// try Amplify.add(plugin: AWSAPIPlugin(configuration: configuration))
/// ```
public struct AWSAPIPluginConfiguration: Sendable, Hashable {
    /// The APIs, by name.
    public var endpoints: [String: Endpoint]

    /// The GraphQL API a request without `apiName` goes to when there are several, such as
    /// `Default` in `awsconfiguration.json`; `nil` when such a request must name one.
    public var defaultGraphQLAPIName: String?

    /// A configuration of the given endpoints, keyed by their names.
    ///
    /// - Precondition: No two endpoints share a name.
    public init(endpoints: [Endpoint], defaultGraphQLAPIName: String? = nil) {
        var byName: [String: Endpoint] = [:]
        for endpoint in endpoints {
            precondition(
                byName.updateValue(endpoint, forKey: endpoint.name) == nil,
                "Two endpoints are named '\(endpoint.name)'; give each API its own name."
            )
        }
        self.endpoints = byName
        self.defaultGraphQLAPIName = defaultGraphQLAPIName
    }

    /// One API: where it is and how requests to it are authorized.
    public struct Endpoint: Sendable, Hashable {
        /// The name requests use as `apiName`.
        public var name: String
        /// GraphQL or REST.
        public var endpointType: EndpointType
        /// The URL: the GraphQL endpoint, or the base URL REST paths are appended to.
        public var endpoint: URL
        /// The AWS region, which AWS_IAM signatures need.
        public var region: String?
        /// How requests are authorized unless they set `authMode`.
        public var authorizationType: AWSAuthorizationType
        /// The key `API_KEY` sends in `x-api-key`.
        public var apiKey: String?
        /// The other modes the API accepts (Gen2 `authorization_types`), for requests that set
        /// `authMode`; empty when the configuration does not list them.
        public var additionalAuthorizationTypes: [AWSAuthorizationType]
        /// The prefix of the AppSync client's database files (`ClientDatabasePrefix`).
        public var clientDatabasePrefix: String?

        /// Where the endpoint was read from, to name keys in errors.
        var origin: Origin

        /// An endpoint.
        public init(
            name: String,
            endpointType: EndpointType,
            endpoint: URL,
            region: String? = nil,
            authorizationType: AWSAuthorizationType,
            apiKey: String? = nil,
            additionalAuthorizationTypes: [AWSAuthorizationType] = [],
            clientDatabasePrefix: String? = nil
        ) {
            self.name = name
            self.endpointType = endpointType
            self.endpoint = endpoint
            self.region = region
            self.authorizationType = authorizationType
            self.apiKey = apiKey
            self.additionalAuthorizationTypes = additionalAuthorizationTypes
            self.clientDatabasePrefix = clientDatabasePrefix
            self.origin = .code(name: name)
        }
    }

    /// The kind of an API.
    public enum EndpointType: String, Sendable, Hashable, CaseIterable {
        case graphQL = "GraphQL"
        case rest = "REST"
    }
}

extension AWSAPIPluginConfiguration.Endpoint {
    /// Endpoints are equal when their settings are, wherever they were read from.
    public static func == (lhs: Self, rhs: Self) -> Bool {
        lhs.settings == rhs.settings
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(settings)
    }

    private struct Settings: Hashable {
        var name: String
        var endpointType: AWSAPIPluginConfiguration.EndpointType
        var endpoint: URL
        var region: String?
        var authorizationType: AWSAuthorizationType
        var apiKey: String?
        var additionalAuthorizationTypes: [AWSAuthorizationType]
        var clientDatabasePrefix: String?
    }

    private var settings: Settings {
        Settings(
            name: name,
            endpointType: endpointType,
            endpoint: endpoint,
            region: region,
            authorizationType: authorizationType,
            apiKey: apiKey,
            additionalAuthorizationTypes: additionalAuthorizationTypes,
            clientDatabasePrefix: clientDatabasePrefix
        )
    }

    /// The configuration keys of an endpoint, as its source spells them.
    struct Origin: Sendable, Hashable {
        /// What precedes a key's name in its full name: `api.plugins.awsAPIPlugin.blog.`, or
        /// `AWSAPIPluginConfiguration.Endpoint 'blog' ` for an endpoint built in code.
        var prefix: String
        var authorizationType: String
        /// The key listing the other modes; `nil` when the source has none.
        var additionalAuthorizationTypes: String?
        var apiKey: String
        var region: String

        /// The full name of `key`, such as `api.plugins.awsAPIPlugin.blog.apiKey`.
        func name(_ key: String) -> String { prefix + key }

        /// An endpoint built in code.
        static func code(name: String) -> Origin {
            Origin(
                prefix: "AWSAPIPluginConfiguration.Endpoint '\(name)' ",
                authorizationType: "authorizationType",
                additionalAuthorizationTypes: "additionalAuthorizationTypes",
                apiKey: "apiKey",
                region: "region"
            )
        }

        /// An API of `amplifyconfiguration.json`, or a REST API of `amplify_outputs.json`, at `path`.
        static func amplifyConfiguration(path: String) -> Origin {
            Origin(
                prefix: path + ".",
                authorizationType: "authorizationType",
                additionalAuthorizationTypes: nil,
                apiKey: "apiKey",
                region: "region"
            )
        }

        /// The `data` section of `amplify_outputs.json`.
        static let amplifyOutputsData = Origin(
            prefix: "data.",
            authorizationType: "default_authorization_type",
            additionalAuthorizationTypes: "authorization_types",
            apiKey: "api_key",
            region: "aws_region"
        )

        /// A client of the `AppSync` section of `awsconfiguration.json`, at `path`.
        static func awsConfiguration(path: String) -> Origin {
            Origin(
                prefix: path + ".",
                authorizationType: "AuthMode",
                additionalAuthorizationTypes: nil,
                apiKey: "ApiKey",
                region: "Region"
            )
        }
    }
}
