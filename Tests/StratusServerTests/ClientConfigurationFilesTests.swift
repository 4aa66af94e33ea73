import Foundation
import StratusCodegen
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

    /// Amplify Gen 2's outputs: `data` with the additional modes and the key, `auth` with the
    /// local pools and where they answer.
    @Test func amplifyOutputsCarriesTheAPIAndTheLocalPools() throws {
        var files = ClientConfigurationFiles(
            endpoint: try #require(URL(string: "http://127.0.0.1:20002/graphql")),
            authorizationMode: .amazonCognitoUserPools,
            apiKey: nil
        )
        files.additionalModes = [.apiKey, .awsIAM]
        files.additionalAPIKey = "da2-abc"
        files.cognito = ClientConfigurationFiles.CognitoEntry(
            userPoolId: "us-east-1_Local",
            appClientId: "localclient",
            identityPoolId: "us-east-1:0000-a0b1",
            region: "us-east-1",
            endpoint: try #require(URL(string: "http://127.0.0.1:20002"))
        )
        #expect(
            files.amplifyOutputs.text
                == #"{"version":"1","auth":{"aws_region":"us-east-1","user_pool_id":"us-east-1_Local","#
                + #""user_pool_client_id":"localclient","user_pool_endpoint":"http://127.0.0.1:20002","#
                + #""identity_pool_id":"us-east-1:0000-a0b1","identity_pool_endpoint":"http://127.0.0.1:20002"},"#
                + #""data":{"url":"http://127.0.0.1:20002/graphql","aws_region":"us-east-1","api_key":"da2-abc","#
                + #""default_authorization_type":"AMAZON_COGNITO_USER_POOLS","authorization_types":["API_KEY","AWS_IAM"]}}"#
        )
    }

    /// `data.model_introspection` as Gen 2 clients read it: fields with their types, lists,
    /// read-only timestamps and relations, keys, enums.
    @Test func amplifyOutputsDescribesTheModels() throws {
        var files = ClientConfigurationFiles(
            endpoint: try #require(URL(string: "http://127.0.0.1:20002/graphql")),
            authorizationMode: .apiKey,
            apiKey: "da2-xyz"
        )
        files.schema = try SchemaParser().parse(
            """
            type Post @model {
              id: ID!
              tags: [String!]
              status: Status
              comments: [Comment] @hasMany(indexName: "byPost", fields: ["id"])
            }
            type Comment @model {
              id: ID!
              postID: ID! @index(name: "byPost")
              post: Post @belongsTo(fields: ["postID"])
            }
            enum Status { OPEN DONE }
            """
        )
        let introspection = try #require(files.amplifyOutputs["data"]?["model_introspection"])
        #expect(introspection["version"] == 1)
        #expect(introspection["enums"]?.text == #"{"Status":{"name":"Status","values":["OPEN","DONE"]}}"#)
        #expect(introspection["nonModels"]?.text == "{}")
        let field = { (name: String) -> String in
            #"{"name":"\#(name)","isArray":false,"type":"#
        }
        let timestamps =
            #""createdAt":"# + field("createdAt")
            + #""AWSDateTime","isRequired":false,"attributes":[],"isReadOnly":true},"#
            + #""updatedAt":"# + field("updatedAt")
            + #""AWSDateTime","isRequired":false,"attributes":[],"isReadOnly":true}"#
        #expect(
            introspection["models"]?["Post"]?.text
                == #"{"name":"Post","fields":{"id":"# + field("id") + #""ID","isRequired":true,"attributes":[]},"#
                + #""tags":{"name":"tags","isArray":true,"type":"String","isRequired":true,"attributes":[],"#
                + #""isArrayNullable":true},"status":"# + field("status")
                + #"{"enum":"Status"},"isRequired":false,"attributes":[]},"#
                + #""comments":{"name":"comments","isArray":true,"type":{"model":"Comment"},"isRequired":false,"#
                + #""attributes":[],"isArrayNullable":true,"#
                + #""association":{"connectionType":"HAS_MANY","associatedWith":["post"]}},"# + timestamps + "},"
                + #""syncable":true,"pluralName":"Posts","attributes":[{"type":"model","properties":{}}],"#
                + #""primaryKeyInfo":{"isCustomPrimaryKey":false,"primaryKeyFieldName":"id","sortKeyFieldNames":[]}}"#
        )
        #expect(
            introspection["models"]?["Comment"]?["fields"]?["post"]?.text
                == field("post") + #"{"model":"Post"},"isRequired":false,"attributes":[],"#
                + #""association":{"connectionType":"BELONGS_TO","targetNames":["postID"]}}"#
        )
        #expect(
            introspection["models"]?["Comment"]?["attributes"]?.text
                == #"[{"type":"model","properties":{}},{"type":"key","properties":{"name":"byPost","fields":["postID"]}}]"#
        )
    }
}
