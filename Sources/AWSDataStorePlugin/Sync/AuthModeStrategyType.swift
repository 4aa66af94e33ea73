import AWSWire
import Amplify

/// Which authorization modes DataStore's sync uses.
public enum AuthModeStrategyType: Sendable, Hashable {
    /// The API's default mode for every request.
    case `default`
    /// The modes of each model's `@auth` rules that allow the operation, most specific first
    /// (owner, groups, private, public; user pools and OIDC before IAM before API key), each
    /// tried in turn while the backend refuses the request as unauthorized.
    case multiAuth
}

extension ModelSchema {
    /// The authorization modes to try for `operation` under `strategy`, in order; `[nil]`
    /// for the API's default mode.
    func authModes(for operation: ModelOperation, strategy: AuthModeStrategyType) -> [AWSAuthorizationType?] {
        guard strategy == .multiAuth else { return [nil] }
        let rules = authRules.filter { $0.operations.contains(operation) }
        guard !rules.isEmpty else { return [nil] }
        func strategyRank(_ rule: AuthRule) -> Int {
            switch rule.allow {
            case .custom: 0
            case .owner: 1
            case .groups: 2
            case .private: 3
            case .public: 4
            }
        }
        func mode(_ rule: AuthRule) -> AWSAuthorizationType {
            switch rule.provider {
            case .apiKey: .apiKey
            case .iam, .identityPool: .awsIAM
            case .oidc: .openIDConnect
            case .userPools: .amazonCognitoUserPools
            case .function: .function
            case nil:
                switch rule.allow {
                case .public: .apiKey
                case .custom: .function
                default: .amazonCognitoUserPools
                }
            }
        }
        func modeRank(_ mode: AWSAuthorizationType) -> Int {
            switch mode {
            case .function: 0
            case .amazonCognitoUserPools, .openIDConnect: 1
            case .awsIAM: 2
            case .apiKey: 3
            case .none: 4
            }
        }
        var modes: [AWSAuthorizationType?] = []
        for rule in rules.sorted(by: { (strategyRank($0), modeRank(mode($0))) < (strategyRank($1), modeRank(mode($1))) }
        )
        where !modes.contains(mode(rule)) {
            modes.append(mode(rule))
        }
        return modes
    }
}
