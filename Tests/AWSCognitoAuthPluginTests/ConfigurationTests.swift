import AWSCognitoAuthPlugin
import Amplify
import Foundation
import Testing

/// `auth.plugins.awsCognitoAuthPlugin` of `amplifyconfiguration.json`.
@Suite struct ConfigurationTests {
    static let section: JSONValue = [
        "UserAgent": "aws-amplify-cli/0.1.0",
        "Version": "0.1.0",
        "IdentityManager": ["Default": [:]],
        "CredentialsProvider": [
            "CognitoIdentity": ["Default": ["PoolId": "us-east-1:11111111-2222", "Region": "us-east-1"]]
        ],
        "CognitoUserPool": [
            "Default": [
                "PoolId": "us-east-1_Abc123",
                "AppClientId": "7abc",
                "AppClientSecret": "shh",
                "Region": "us-east-1",
            ]
        ],
        "Auth": ["Default": ["authenticationFlowType": "USER_PASSWORD_AUTH"]],
    ]

    @Test func readsTheSectionAmplifyWrites() throws {
        let configuration = try AWSCognitoAuthConfiguration(amplifyConfigurationSection: Self.section)
        #expect(
            configuration
                == AWSCognitoAuthConfiguration(
                    userPool: .init(
                        poolId: "us-east-1_Abc123",
                        appClientId: "7abc",
                        appClientSecret: "shh",
                        region: "us-east-1"
                    ),
                    identityPool: .init(poolId: "us-east-1:11111111-2222", region: "us-east-1"),
                    authenticationFlowType: .userPassword
                )
        )
        #expect(
            configuration.userPool?.serviceEndpoint.absoluteString == "https://cognito-idp.us-east-1.amazonaws.com/"
        )
        #expect(
            configuration.identityPool?.serviceEndpoint.absoluteString
                == "https://cognito-identity.us-east-1.amazonaws.com/"
        )
    }

    @Test func anEndpointPointsAtALocalCognito() throws {
        let section: JSONValue = [
            "CognitoUserPool": [
                "Default": [
                    "PoolId": "us-east-1_Abc", "AppClientId": "7abc", "Region": "us-east-1",
                    "Endpoint": "http://127.0.0.1:5001",
                ]
            ]
        ]
        let configuration = try AWSCognitoAuthConfiguration(amplifyConfigurationSection: section)
        #expect(configuration.userPool?.serviceEndpoint.absoluteString == "http://127.0.0.1:5001")
        #expect(configuration.identityPool == nil)
        #expect(configuration.authenticationFlowType == .userSRP)
    }

    @Test(arguments: [
        (
            "PoolId",
            "auth.plugins.awsCognitoAuthPlugin.CognitoUserPool.Default.PoolId is missing. Add it to the configuration."
        ),
        (
            "AppClientId",
            "auth.plugins.awsCognitoAuthPlugin.CognitoUserPool.Default.AppClientId is missing. Add it to the configuration."
        ),
        (
            "Region",
            "auth.plugins.awsCognitoAuthPlugin.CognitoUserPool.Default.Region is missing. Add it to the configuration."
        ),
    ])
    func aMissingKeyIsNamed(key: String, message: String) throws {
        var pool: [String: JSONValue] = ["PoolId": "us-east-1_Abc", "AppClientId": "7abc", "Region": "us-east-1"]
        pool[key] = nil
        #expect(throws: ConfigurationError(message)) {
            try AWSCognitoAuthConfiguration(amplifyConfigurationSection: ["CognitoUserPool": ["Default": .object(pool)]]
            )
        }
    }

    @Test func otherMistakesAreNamed() throws {
        #expect(
            throws: ConfigurationError(
                "auth.plugins.awsCognitoAuthPlugin.CredentialsProvider.CognitoIdentity.Default.Region is missing. "
                    + "Add it to the configuration."
            )
        ) {
            try AWSCognitoAuthConfiguration(
                amplifyConfigurationSection: ["CredentialsProvider": ["CognitoIdentity": ["Default": ["PoolId": "p"]]]]
            )
        }
        #expect(
            throws: ConfigurationError(
                "auth.plugins.awsCognitoAuthPlugin has neither CognitoUserPool.Default nor "
                    + "CredentialsProvider.CognitoIdentity.Default. Add the user pool (PoolId, AppClientId, Region) "
                    + "or the identity pool (PoolId, Region)."
            )
        ) {
            try AWSCognitoAuthConfiguration(amplifyConfigurationSection: ["Version": "0.1.0"])
        }
        let flow: JSONValue = [
            "CognitoUserPool": Self.section["CognitoUserPool"]!,
            "Auth": ["Default": ["authenticationFlowType": "CUSTOM_AUTH"]],
        ]
        #expect(
            throws: ConfigurationError(
                "auth.plugins.awsCognitoAuthPlugin.Auth.Default.authenticationFlowType is CUSTOM_AUTH; "
                    + "use USER_SRP_AUTH or USER_PASSWORD_AUTH."
            )
        ) {
            try AWSCognitoAuthConfiguration(amplifyConfigurationSection: flow)
        }
    }

    @Test func thePluginNeedsAConfiguration() throws {
        let plugin = AWSCognitoAuthPlugin(sessionStore: InMemoryAuthSessionStore())
        #expect(
            throws: ConfigurationError(
                "AWSCognitoAuthPlugin has no configuration. Add auth.plugins.awsCognitoAuthPlugin to "
                    + "amplifyconfiguration.json, or create the plugin with AWSCognitoAuthPlugin(configuration:)."
            )
        ) {
            try plugin.configure(with: AmplifyConfiguration(json: ["api": [:]]))
        }
        #expect(plugin.key == "awsCognitoAuthPlugin")
        #expect(plugin.configuration == nil)
        try plugin.configure(
            with: AmplifyConfiguration(json: ["auth": ["plugins": ["awsCognitoAuthPlugin": Self.section]]])
        )
        #expect(plugin.configuration?.userPool?.appClientSecret == "shh")
    }
}

/// The other configuration files: Gen2 `amplify_outputs.json` and `awsconfiguration.json`.
@Suite struct OtherConfigurationFileTests {
    @Test func amplifyOutputsAuthSection() throws {
        let json: JSONValue = [
            "version": "1.3",
            "auth": [
                "user_pool_id": "us-east-1_Abc", "user_pool_client_id": "7abc", "aws_region": "us-east-1",
                "identity_pool_id": "us-east-1:1111", "unauthenticated_identities_enabled": true,
            ],
        ]
        let plugin = AWSCognitoAuthPlugin(sessionStore: InMemoryAuthSessionStore())
        try plugin.configure(with: AmplifyConfiguration(json: json))
        #expect(
            plugin.configuration
                == AWSCognitoAuthConfiguration(
                    userPool: .init(poolId: "us-east-1_Abc", appClientId: "7abc", region: "us-east-1"),
                    identityPool: .init(poolId: "us-east-1:1111", region: "us-east-1")
                )
        )
        #expect(
            throws: ConfigurationError(
                "amplify_outputs.json auth.user_pool_client_id is missing. Add the app client's id."
            )
        ) {
            try AWSCognitoAuthConfiguration(
                amplifyOutputs: ["version": "1.3", "auth": ["user_pool_id": "p", "aws_region": "us-east-1"]]
            )
        }
    }

    @Test func awsConfigurationSections() throws {
        let json: JSONValue = [
            "CognitoUserPool": ["Default": ["PoolId": "us-east-1_Abc", "AppClientId": "7abc", "Region": "us-east-1"]],
            "AppSync": ["Default": ["ApiUrl": "https://x/graphql"]],
        ]
        let plugin = AWSCognitoAuthPlugin(sessionStore: InMemoryAuthSessionStore())
        try plugin.configure(with: AmplifyConfiguration(json: json))
        #expect(plugin.configuration?.userPool?.poolId == "us-east-1_Abc")
        #expect(
            throws: ConfigurationError(
                "awsconfiguration.json: CognitoUserPool.Default.Region is missing. Add it to the configuration."
            )
        ) {
            try AWSCognitoAuthConfiguration(
                awsConfiguration: ["CognitoUserPool": ["Default": ["PoolId": "p", "AppClientId": "c"]]]
            )
        }
    }
}
