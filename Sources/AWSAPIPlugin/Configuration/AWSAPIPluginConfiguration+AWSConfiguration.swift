import AWSPluginsCore
import Amplify
import Foundation

extension AWSAPIPluginConfiguration {
    /// The key of the AppSync client that requests without `apiName` use.
    public static let awsConfigurationDefaultKey = "Default"

    /// Reads the `AppSync` section of an `awsconfiguration.json`: each key is a GraphQL API of
    /// that name, and `Default`, when there is one, receives requests without `apiName`.
    ///
    /// ```json
    /// {
    ///   "AppSync": {
    ///     "Default": {
    ///       "ApiUrl": "https://abc.appsync-api.us-east-1.amazonaws.com/graphql",
    ///       "Region": "us-east-1",
    ///       "AuthMode": "API_KEY",
    ///       "ApiKey": "da2-abc",
    ///       "ClientDatabasePrefix": "blog_API_KEY"
    ///     },
    ///     "blog_AWS_IAM": {
    ///       "ApiUrl": "https://abc.appsync-api.us-east-1.amazonaws.com/graphql",
    ///       "Region": "us-east-1",
    ///       "AuthMode": "AWS_IAM",
    ///       "ClientDatabasePrefix": "blog_AWS_IAM"
    ///     }
    ///   }
    /// }
    /// ```
    ///
    /// - Throws: `ConfigurationError` naming the key that is missing or wrong, and the fix.
    public init(awsConfiguration json: JSONValue) throws {
        let root = try ConfigurationObject(
            json,
            path: "awsconfiguration.json",
            expected: "Download it again from the AppSync console."
        )
        let example =
            #"such as {"Default": {"ApiUrl": "https://<id>.appsync-api.<region>.amazonaws.com/graphql", "Region": "us-east-1", "AuthMode": "API_KEY", "ApiKey": "<key>"}}."#
        guard let section = root.members["AppSync"], !section.isNull else {
            throw ConfigurationError("AppSync is missing from awsconfiguration.json. Add it, \(example)")
        }
        let clients = try ConfigurationObject(
            section,
            path: "AppSync",
            expected: "Give it one object per client, keyed by name, \(example)"
        )
        guard !clients.members.isEmpty else {
            throw ConfigurationError("AppSync has no clients. Add one object per client, keyed by name, \(example)")
        }
        var endpoints: [Endpoint] = []
        for name in clients.members.keys.sorted() {
            let client = try ConfigurationObject(
                clients.members[name]!,
                path: clients.name(name),
                expected: "Give it ApiUrl, Region and AuthMode."
            )
            let prefix = try client.optionalString(
                "ClientDatabasePrefix",
                fix: "Use letters, digits and underscores only, such as \"blog_\(name)\"."
            )
            if let prefix, prefix.contains(where: { !($0.isASCII && ($0.isLetter || $0.isNumber || $0 == "_")) }) {
                throw ConfigurationError(
                    "\(client.name("ClientDatabasePrefix")) is '\(prefix)', which does not match ^[_a-zA-Z0-9]+$. "
                        + "Use letters, digits and underscores only."
                )
            }
            var endpoint = Endpoint(
                name: name,
                endpointType: .graphQL,
                endpoint: try client.url("ApiUrl", fix: EndpointType.graphQL.urlFix),
                region: try client.string("Region", fix: Self.regionFix),
                authorizationType: try client.authorizationType("AuthMode"),
                apiKey: try client.optionalString("ApiKey", fix: Self.apiKeyFix),
                clientDatabasePrefix: prefix
            )
            endpoint.origin = .awsConfiguration(path: client.path)
            endpoints.append(endpoint)
        }
        let defaultKey = Self.awsConfigurationDefaultKey
        self.init(endpoints: endpoints, defaultGraphQLAPIName: clients.members[defaultKey] == nil ? nil : defaultKey)
    }

    /// Reads an `awsconfiguration.json` file.
    ///
    /// - Throws: `ConfigurationError` when the file cannot be read, is not JSON, or its
    ///   `AppSync` section is wrong.
    public init(awsConfigurationFile url: URL) throws {
        let data: Data
        do {
            data = try Data(contentsOf: url)
        } catch {
            throw ConfigurationError(
                "Cannot read the configuration file at '\(url.path)'. Pass the path of your awsconfiguration.json."
            )
        }
        let json: JSONValue
        do {
            json = try JSONValue(parsing: data)
        } catch {
            throw ConfigurationError("The configuration file at '\(url.path)' is not JSON: \(error) Fix its syntax.")
        }
        try self.init(awsConfiguration: json)
    }
}
