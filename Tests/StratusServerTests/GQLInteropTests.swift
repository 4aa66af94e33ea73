import Foundation
import StratusServer
import StratusTesting
import Testing

/// The endpoint driven by gql (Python), a client nobody here wrote: API-key and IAM requests
/// (signed by botocore through gql's AppSyncIAMAuthentication) succeed, a wrong secret is refused.
@Suite struct GQLInteropTests {
    static let script = URL(filePath: #filePath).deletingLastPathComponent().appending(path: "Interop/gql_http.py")

    /// Runs a command to its end; its standard error is appended to its output.
    static func run(_ arguments: [String]) async throws -> (status: Int32, output: String) {
        let result = try await ChildProcess.run(arguments)
        let status: Int32 =
            switch result.status {
            case .exited(let code): code
            case .signaled(let signal): 128 + signal
            }
        return (status, result.outputText + result.errorText)
    }

    @Test func gqlWithAPIKeyAndIAM() async throws {
        try await HTTPEndpointTests.withEndpoint { url in
            let host = "\(url.host!):\(url.port!)"
            let key = HTTPEndpointTests.accessKey
            let result = try await Self.run(
                [
                    "python3", Self.script.path, url.absoluteString, host, "da2-valid", key.accessKeyId,
                    key.secretAccessKey, key.sessionToken ?? "",
                ]
            )
            try #require(
                result.status == 0,
                "gql failed (install it with: python3 -m pip install 'gql[aiohttp,websockets,botocore]'):\n\(result.output)"
            )
            let lines = result.output.split(separator: "\n")
            let json = try JSONSerialization.jsonObject(with: Data(lines.last!.utf8)) as? [String: Any]
            let created = (json?["apiKeyCreate"] as? [String: Any])?["data"] as? [String: Any]
            #expect((created?["createPost"] as? [String: Any])?["title"] as? String == "From gql")
            let got = (json?["iamGet"] as? [String: Any])?["data"] as? [String: Any]
            #expect((got?["getPost"] as? [String: Any])?["title"] as? String == "From gql", "\(result.output)")
            #expect((got?["getPost"] as? [String: Any])?["_version"] as? Int == 1)
            let signedCreate = (json?["iamCreate"] as? [String: Any])?["data"] as? [String: Any]
            #expect((signedCreate?["createPost"] as? [String: Any])?["status"] as? String == "PUBLISHED")
            let refused = (json?["wrongSecret"] as? [String: Any])?["error"] as? String
            #expect(refused?.contains("InvalidSignatureException") == true, "\(refused ?? "no error")")
        }
    }
}
