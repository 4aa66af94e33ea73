import AWSPluginsCore
import AWSWire
import Amplify
import Foundation

extension AWSAPIPluginConfiguration {
    /// Reads the `api.plugins.awsAPIPlugin` section of `amplifyconfiguration.json`: one object
    /// per API, keyed by its name.
    ///
    /// ```json
    /// {
    ///   "blog": {
    ///     "endpointType": "GraphQL",
    ///     "endpoint": "https://abc.appsync-api.us-east-1.amazonaws.com/graphql",
    ///     "region": "us-east-1",
    ///     "authorizationType": "API_KEY",
    ///     "apiKey": "da2-abc"
    ///   }
    /// }
    /// ```
    ///
    /// `authorizationType` defaults to `AWS_IAM` for a REST API and is required for a GraphQL one.
    ///
    /// - Throws: `ConfigurationError` naming the key that is missing or wrong, and the fix.
    public init(amplifyConfigurationSection section: JSONValue) throws {
        let path = "api.plugins.awsAPIPlugin"
        let example =
            #"such as {"blog": {"endpointType": "GraphQL", "endpoint": "https://<id>.appsync-api.<region>.amazonaws.com/graphql", "#
            + #""region": "us-east-1", "authorizationType": "API_KEY", "apiKey": "<key>"}}."#
        let object = try ConfigurationObject(
            section,
            path: path,
            expected: "Give it one object per API, keyed by name, \(example)"
        )
        guard !object.members.isEmpty else {
            throw ConfigurationError("\(path) has no APIs. Add one object per API, keyed by name, \(example)")
        }
        var endpoints: [Endpoint] = []
        for name in object.members.keys.sorted() {
            let api = try ConfigurationObject(
                object.members[name]!,
                path: object.name(name),
                expected: "Give it endpointType, endpoint, region and authorizationType."
            )
            let endpointType = try api.endpointType("endpointType")
            let endpoint = try api.url("endpoint", fix: endpointType.urlFix)
            let region = try api.optionalString("region", fix: Self.regionFix)
            let authorizationType: AWSAuthorizationType
            switch endpointType {
            case .graphQL: authorizationType = try api.authorizationType("authorizationType")
            case .rest: authorizationType = try api.optionalAuthorizationType("authorizationType") ?? .awsIAM
            }
            var configured = Endpoint(
                name: name,
                endpointType: endpointType,
                endpoint: endpoint,
                region: region,
                authorizationType: authorizationType,
                apiKey: try api.optionalString("apiKey", fix: Self.apiKeyFix)
            )
            configured.origin = .amplifyConfiguration(path: api.path)
            endpoints.append(configured)
        }
        self.init(endpoints: endpoints)
    }

    static let regionFix = #"Set it to the API's AWS region, such as "us-east-1"."#
    static let apiKeyFix = #"Set it to the API key, such as "da2-abcdefghijklmnopqrstuvwxyz"."#
}

extension AWSAPIPluginConfiguration.EndpointType {
    /// How to fix an endpoint URL of this type.
    var urlFix: String {
        switch self {
        case .graphQL:
            return
                #"Set it to the GraphQL endpoint, such as "https://<id>.appsync-api.<region>.amazonaws.com/graphql"."#
        case .rest:
            return
                #"Set it to the REST API's base URL, such as "https://<id>.execute-api.<region>.amazonaws.com/<stage>"."#
        }
    }
}

extension ConfigurationObject {
    /// The endpoint type at `key`.
    ///
    /// - Throws: `ConfigurationError` when it is missing or is neither `GraphQL` nor `REST`.
    func endpointType(_ key: String) throws -> AWSAPIPluginConfiguration.EndpointType {
        let fix = #"Set it to "GraphQL" or "REST"."#
        let text = try string(key, fix: fix)
        if let type = AWSAPIPluginConfiguration.EndpointType(rawValue: text) { return type }
        var message = "\(name(key)) is '\(text)', which is not an endpoint type."
        if let type = AWSAPIPluginConfiguration.EndpointType.allCases.first(where: {
            $0.rawValue.lowercased() == text.lowercased()
        }) {
            message += " Did you mean '\(type.rawValue)'?"
        }
        throw ConfigurationError("\(message) \(fix)")
    }
}
