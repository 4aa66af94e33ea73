import Foundation
import StratusServer
import Testing

/// The configuration files `stratus serve` writes for clients.
@Suite struct ClientConfigurationFilesTests {
    /// As the AppSync console writes it for an API with additional modes: one client entry per
    /// mode, each with its own `ClientDatabasePrefix`, the API key only where it is the mode.
    @Test func eachAdditionalModeGetsItsOwnAppSyncEntry() throws {
        var files = ClientConfigurationFiles(
            endpoint: try #require(URL(string: "http://127.0.0.1:20002/graphql")),
            authorizationMode: .apiKey,
            apiKey: "da2-xyz",
            apiName: "friendly_name"
        )
        files.additionalModes = [.awsIAM, .amazonCognitoUserPools, .openIDConnect]
        let entry = { (mode: String) -> String in
            #""ApiUrl":"http://127.0.0.1:20002/graphql","Region":"us-east-1","AuthMode":"\#(mode)","#
        }
        #expect(
            files.awsConfiguration.text
                == #"{"Version":"1.0","AppSync":{"Default":{"# + entry("API_KEY")
                + #""ApiKey":"da2-xyz","ClientDatabasePrefix":"friendly_name_API_KEY"},"#
                + #""friendly_name_AWS_IAM":{"# + entry("AWS_IAM")
                + #""ClientDatabasePrefix":"friendly_name_AWS_IAM"},"#
                + #""friendly_name_AMAZON_COGNITO_USER_POOLS":{"# + entry("AMAZON_COGNITO_USER_POOLS")
                + #""ClientDatabasePrefix":"friendly_name_AMAZON_COGNITO_USER_POOLS"},"#
                + #""friendly_name_OPENID_CONNECT":{"# + entry("OPENID_CONNECT")
                + #""ClientDatabasePrefix":"friendly_name_OPENID_CONNECT"}}}"#
        )
    }

    @Test func anAdditionalAPIKeyModeCarriesTheKey() throws {
        var files = ClientConfigurationFiles(
            endpoint: try #require(URL(string: "http://127.0.0.1:20002/graphql")),
            authorizationMode: .awsIAM,
            apiKey: nil
        )
        files.additionalModes = [.apiKey]
        files.additionalAPIKey = "da2-abc"
        let clients = try #require(files.awsConfiguration["AppSync"]?.objectValue)
        #expect(clients.keys == ["Default", "stratus_API_KEY"])
        #expect(clients["Default"]?["ApiKey"] == nil)
        #expect(clients["stratus_API_KEY"]?["ApiKey"] == "da2-abc")
    }
}
