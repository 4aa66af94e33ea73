import AWSWire
import Foundation
import StratusTesting

/// A request signed by botocore's `SigV4Auth`, from `Reference/botocore_sigv4_vectors.py`.
struct BotocoreVector: Decodable, Sendable, SigningVector {
    var method: String
    var url: String
    var headers: [[String]]
    var body: String
    var accessKeyId: String
    var secretAccessKey: String
    var sessionToken: String?
    var service: String
    var region: String
    var epochSeconds: Int64
    var canonicalRequest: String
    var stringToSign: String
    var signedHeaders: [[String]]
    var authorization: String
    /// The `Host` value botocore signed when the request had none.
    var host: String

    var bodyData: Data { Data(base64Encoded: body)! }

    /// The unsigned request, or `nil` when Foundation reads the URL differently from botocore.
    var request: SigV4Request? {
        guard let url = URL(string: self.url), url.absoluteString == self.url else { return nil }
        return SigV4Request(method: method, url: url, headers: Self.headers(headers), body: bodyData)
    }

    /// The request as botocore signed it, with the `Host` header a client adds when it has none.
    var signedRequest: SigV4Request? {
        guard var request else { return nil }
        request.headers = Self.headers(signedHeaders)
        if !request.headers.contains(name: "Host") {
            request.headers.add(name: "Host", value: host)
        }
        return request
    }

    static func headers(_ pairs: [[String]]) -> SigV4Request.Headers {
        SigV4Request.Headers(pairs.map { SigV4Request.Headers.Field(name: $0[0], value: $0[1]) })
    }
}

/// Why the reference vectors could not be produced.
struct BotocoreUnavailable: Error, CustomStringConvertible {
    var description: String
}

/// Runs the reference script once for every test that needs botocore's answers.
enum BotocoreReference {
    /// How many requests the script signs.
    static let count = 600

    /// botocore's version and its signed requests, or why they are unavailable, computed once.
    static func vectors() async -> Result<(version: String, vectors: [BotocoreVector]), BotocoreUnavailable> {
        await shared.value
    }

    private static let shared = Task {
        await run(script: "botocore_sigv4_vectors.py", arguments: [String(count), "20240102"], as: Output.self)
            .map { (version: $0.botocore, vectors: $0.vectors) }
    }

    private struct Output: Decodable {
        var botocore: String
        var vectors: [BotocoreVector]
    }

    /// Runs a script of `Reference/` with python3 and decodes what it prints.
    static func run<Output: Decodable>(
        script name: String,
        arguments: [String],
        as type: Output.Type
    ) async -> Result<Output, BotocoreUnavailable> {
        let script = URL(filePath: #filePath).deletingLastPathComponent().appending(components: "Reference", name)
        let install =
            "Install Python 3 and botocore (python3 -m pip install botocore) to run the SigV4 reference tests."
        let result: ChildProcess.Result
        do {
            result = try await ChildProcess.run(["python3", script.path(percentEncoded: false)] + arguments)
        } catch {
            return .failure(BotocoreUnavailable(description: "Could not run python3 (\(error)). \(install)"))
        }
        let data = result.output
        guard result.status == .exited(0) else {
            // Status 3: the script found python3 but not botocore, and said how to install it.
            let advice = result.status == .exited(3) ? "" : " \(install)"
            return .failure(
                BotocoreUnavailable(
                    description: "\(name) \(result.status): "
                        + result.errorText.trimmingCharacters(in: .whitespacesAndNewlines) + advice
                )
            )
        }
        do {
            return .success(try JSONDecoder().decode(Output.self, from: data))
        } catch {
            return .failure(BotocoreUnavailable(description: "Unreadable output from \(name): \(error)"))
        }
    }
}
