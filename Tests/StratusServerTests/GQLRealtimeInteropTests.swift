import Foundation
import StratusServer
import Testing

/// The real-time endpoint driven by gql's AppSyncWebsocketsTransport, a client nobody here
/// wrote, with API-key and IAM (botocore) authentication.
@Suite struct GQLRealtimeInteropTests {
    static let script = URL(filePath: #filePath).deletingLastPathComponent().appending(path: "Interop/gql_ws.py")

    @Test func gqlSubscribesWithAPIKeyAndIAM() async throws {
        try await RealtimeTests.withEndpoint { endpoint async throws in
            let key = HTTPEndpointTests.accessKey
            let result = try await GQLInteropTests.run(
                [
                    "python3", Self.script.path, endpoint.graphQLURL.absoluteString, endpoint.realtimeURL,
                    endpoint.host, "da2-valid", key.accessKeyId, key.secretAccessKey, key.sessionToken ?? "",
                ]
            )
            try #require(
                result.status == 0,
                "gql failed (install it with: python3 -m pip install 'gql[aiohttp,websockets,botocore]'):\n\(result.output)"
            )
            let lines = result.output.split(separator: "\n")
            let json = try JSON(parsing: String(lines.last ?? ""))
            for (name, prefix) in [("apiKey", "key-"), ("iam", "iam-")] {
                #expect(json[name]?["error"] == nil, "\(json[name]?["error"]?.text ?? "")")
                let events = json[name]?["events"]?.arrayValue ?? []
                #expect(
                    events
                        == (0..<3).map { index -> JSON in
                            [
                                "id": .string("\(prefix)\(index)"), "rating": .int(index),
                                "title": .string("\(prefix)\(index)"),
                            ]
                        }
                )
            }
        }
    }
}
