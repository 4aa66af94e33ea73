import Foundation
import StratusServer
import Testing

/// The endpoint driven by gql (Python), a client nobody here wrote: API-key and IAM requests
/// (signed by botocore through gql's AppSyncIAMAuthentication) succeed, a wrong secret is refused.
@Suite struct GQLInteropTests {
    static let script = URL(filePath: #filePath).deletingLastPathComponent().appending(path: "Interop/gql_http.py")

    /// Runs a command without blocking a thread of the concurrency pool.
    static func run(_ arguments: [String]) async throws -> (status: Int32, output: String) {
        let process = Process()
        process.executableURL = URL(filePath: "/usr/bin/env")
        process.arguments = arguments
        let output = FileManager.default.temporaryDirectory.appending(path: "stratus-gql-\(UUID().uuidString).out")
        _ = FileManager.default.createFile(atPath: output.path, contents: nil)
        defer { try? FileManager.default.removeItem(at: output) }
        let handle = try FileHandle(forWritingTo: output)
        process.standardOutput = handle
        process.standardError = handle
        let status: Int32 = try await withCheckedThrowingContinuation { continuation in
            process.terminationHandler = { continuation.resume(returning: $0.terminationStatus) }
            do {
                try process.run()
            } catch {
                process.terminationHandler = nil
                continuation.resume(throwing: error)
            }
        }
        try handle.close()
        return (status, try String(contentsOf: output, encoding: .utf8))
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
