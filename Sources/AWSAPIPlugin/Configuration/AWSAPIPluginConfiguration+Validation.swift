import AWSWire
import Amplify

extension AWSAPIPluginConfiguration {
    /// Checks that each API's default mode has what it needs: an API key for `API_KEY` (also
    /// when only listed as an additional mode), a region for `AWS_IAM`, a token provider for the
    /// modes that send a token.
    ///
    /// - Throws: `ConfigurationError` naming the key and the fix.
    func validate(apiAuthProviderFactory: APIAuthProviderFactory, hasAuthPlugin: Bool = false) throws {
        for name in endpoints.keys.sorted() {
            try endpoints[name]!.validate(apiAuthProviderFactory: apiAuthProviderFactory, hasAuthPlugin: hasAuthPlugin)
        }
        if let defaultGraphQLAPIName, endpoints[defaultGraphQLAPIName]?.endpointType != .graphQL {
            let names = endpoints.values.filter { $0.endpointType == .graphQL }.map(\.name).sorted()
            throw ConfigurationError(
                "defaultGraphQLAPIName is '\(defaultGraphQLAPIName)', which is not a configured GraphQL API. "
                    + "Set it to one of: \(names.joined(separator: ", "))."
            )
        }
    }
}

extension AWSAPIPluginConfiguration.Endpoint {
    func validate(apiAuthProviderFactory: APIAuthProviderFactory, hasAuthPlugin: Bool) throws {
        if apiKey == nil {
            if authorizationType == .apiKey {
                throw ConfigurationError(
                    "\(origin.name(origin.apiKey)) is missing, and \(origin.authorizationType) API_KEY sends it in "
                        + "x-api-key. \(AWSAPIPluginConfiguration.apiKeyFix)"
                )
            }
            if additionalAuthorizationTypes.contains(.apiKey) {
                throw ConfigurationError(
                    "\(origin.name(origin.apiKey)) is missing, and \(origin.additionalAuthorizationTypes ?? "the additional modes") "
                        + "includes API_KEY, which sends it in x-api-key. \(AWSAPIPluginConfiguration.apiKeyFix)"
                )
            }
        }
        if authorizationType == .awsIAM, region == nil {
            throw ConfigurationError(
                "\(origin.name(origin.region)) is missing, and \(origin.authorizationType) AWS_IAM signs requests "
                    + "for a region. \(AWSAPIPluginConfiguration.regionFix)"
            )
        }
        if let provider = authorizationType.tokenProviderName,
            !apiAuthProviderFactory.hasTokenProvider(for: authorizationType),
            !(authorizationType == .amazonCognitoUserPools && hasAuthPlugin)
        {
            throw ConfigurationError(
                "\(origin.name(origin.authorizationType)) is \(authorizationType.rawValue), but the "
                    + "APIAuthProviderFactory returns no \(provider)(). Create the plugin with "
                    + "AWSAPIPlugin(apiAuthProviderFactory:) and a factory that overrides \(provider)()."
            )
        }
    }
}

extension AWSAuthorizationType {
    /// The factory method of the token provider of a mode that sends a token.
    var tokenProviderName: String? {
        switch self {
        case .amazonCognitoUserPools: return "userPoolsAuthProvider"
        case .openIDConnect: return "oidcAuthProvider"
        case .function: return "functionAuthProvider"
        case .none, .apiKey, .awsIAM: return nil
        }
    }
}

extension APIAuthProviderFactory {
    /// Whether the factory provides a token provider for `mode`.
    func hasTokenProvider(for mode: AWSAuthorizationType) -> Bool {
        switch mode {
        case .amazonCognitoUserPools: return userPoolsAuthProvider() != nil
        case .openIDConnect: return oidcAuthProvider() != nil
        case .function: return functionAuthProvider() != nil
        case .none, .apiKey, .awsIAM: return true
        }
    }
}
