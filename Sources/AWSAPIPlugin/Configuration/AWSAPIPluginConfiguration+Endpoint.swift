import Amplify

extension AWSAPIPluginConfiguration {
    /// The API a request goes to: the one named `name`, or, without a name, the only API of
    /// `type` (or ``defaultGraphQLAPIName``).
    ///
    /// - Throws: `APIError.invalidConfiguration` when no API matches, or several do.
    func endpoint(named name: String?, type: EndpointType) throws -> Endpoint {
        let candidates = endpoints.values.filter { $0.endpointType == type }.map(\.name).sorted()
        let kind = type == .graphQL ? "GraphQL" : "REST"
        if let name {
            guard let endpoint = endpoints[name] else {
                throw APIError.invalidConfiguration(
                    "There is no API named '\(name)'.",
                    "Set apiName to one of the configured APIs: \(endpoints.keys.sorted().joined(separator: ", "))."
                )
            }
            guard endpoint.endpointType == type else {
                let other = type == .graphQL ? "REST" : "GraphQL"
                throw APIError.invalidConfiguration(
                    "The API '\(name)' is a \(other) API, not a \(kind) API.",
                    candidates.isEmpty
                        ? "Add a \(kind) API to the configuration."
                        : "Set apiName to one of the \(kind) APIs: \(candidates.joined(separator: ", "))."
                )
            }
            return endpoint
        }
        if type == .graphQL, let defaultGraphQLAPIName, let endpoint = endpoints[defaultGraphQLAPIName] {
            return endpoint
        }
        guard let only = candidates.first else {
            throw APIError.invalidConfiguration(
                "There is no \(kind) API configured.",
                "Add one with \"endpointType\": \"\(type.rawValue)\" to api.plugins.awsAPIPlugin."
            )
        }
        guard candidates.count == 1 else {
            throw APIError.invalidConfiguration(
                "There are several \(kind) APIs (\(candidates.joined(separator: ", "))) and the request names none.",
                "Set apiName to one of them."
            )
        }
        return endpoints[only]!
    }
}
