import AWSPluginsCore
import AWSWire
import Amplify
import Foundation

extension AWSAPIPluginConfiguration {
    /// The name of the GraphQL API of an `amplify_outputs.json`, which has a single one.
    public static let amplifyOutputsAPIName = "data"

    /// Reads a Gen2 `amplify_outputs.json`: its `data` section is the GraphQL API, named
    /// ``amplifyOutputsAPIName``, and each entry of `custom.API` (as `backend.addOutput` writes
    /// REST APIs) is a REST API signed with `AWS_IAM` unless it sets `authorizationType`.
    ///
    /// ```json
    /// {
    ///   "version": "1.3",
    ///   "data": {
    ///     "url": "https://abc.appsync-api.us-east-1.amazonaws.com/graphql",
    ///     "aws_region": "us-east-1",
    ///     "default_authorization_type": "API_KEY",
    ///     "api_key": "da2-abc",
    ///     "authorization_types": ["AMAZON_COGNITO_USER_POOLS", "AWS_IAM"]
    ///   }
    /// }
    /// ```
    ///
    /// - Throws: `ConfigurationError` naming the key that is missing or wrong, and the fix.
    public init(amplifyOutputs json: JSONValue) throws {
        let root = try ConfigurationObject(
            json,
            path: "amplify_outputs.json",
            expected: "Generate it again with `npx ampx generate outputs`."
        )
        var endpoints: [Endpoint] = []
        if let data = root.members["data"], !data.isNull {
            endpoints.append(try Self.dataEndpoint(data))
        }
        if let custom = root.members["custom"], let api = custom.value(at: "API"), !api.isNull {
            let apis = try ConfigurationObject(
                api,
                path: "custom.API",
                expected: "Give it one object per REST API, keyed by name, with endpoint and region."
            )
            for name in apis.members.keys.sorted() {
                endpoints.append(try Self.customRESTEndpoint(name: name, apis.members[name]!, path: apis.name(name)))
            }
        }
        guard !endpoints.isEmpty else {
            throw ConfigurationError(
                "data is missing from amplify_outputs.json. Add a data resource to the backend (defineData) "
                    + "and generate amplify_outputs.json again with `npx ampx generate outputs`."
            )
        }
        self.init(endpoints: endpoints)
    }

    private static func dataEndpoint(_ value: JSONValue) throws -> Endpoint {
        let data = try ConfigurationObject(
            value,
            path: "data",
            expected: "Give it url, aws_region and default_authorization_type."
        )
        let url = try data.url("url", fix: EndpointType.graphQL.urlFix)
        let region = try data.string("aws_region", fix: regionFix)
        let authorizationType = try data.authorizationType("default_authorization_type")
        var additional: [AWSAuthorizationType] = []
        if let types = data.members["authorization_types"], !types.isNull {
            guard case .array(let elements) = types else {
                throw ConfigurationError(
                    "data.authorization_types is \(types.configurationText), not an array. "
                        + #"List the other modes, such as ["AMAZON_COGNITO_USER_POOLS", "AWS_IAM"]."#
                )
            }
            for (index, element) in elements.enumerated() {
                let key = "data.authorization_types[\(index)]"
                guard case .string(let text) = element else {
                    throw ConfigurationError(
                        "\(key) is \(element.configurationText), not a string. \(AWSAuthorizationType.fix)"
                    )
                }
                additional.append(try AWSAuthorizationType(configurationText: text, key: key))
            }
        }
        var endpoint = Endpoint(
            name: amplifyOutputsAPIName,
            endpointType: .graphQL,
            endpoint: url,
            region: region,
            authorizationType: authorizationType,
            apiKey: try data.optionalString("api_key", fix: apiKeyFix),
            additionalAuthorizationTypes: additional.filter { $0 != authorizationType }
        )
        endpoint.origin = .amplifyOutputsData
        return endpoint
    }

    private static func customRESTEndpoint(name: String, _ value: JSONValue, path: String) throws -> Endpoint {
        let api = try ConfigurationObject(value, path: path, expected: "Give it endpoint and region.")
        var endpoint = Endpoint(
            name: name,
            endpointType: .rest,
            endpoint: try api.url("endpoint", fix: EndpointType.rest.urlFix),
            region: try api.optionalString("region", fix: regionFix),
            authorizationType: try api.optionalAuthorizationType("authorizationType") ?? .awsIAM,
            apiKey: try api.optionalString("apiKey", fix: apiKeyFix)
        )
        endpoint.origin = .amplifyConfiguration(path: path)
        return endpoint
    }
}
