import AWSPluginsCore
import AWSWire
import Foundation
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A request generated and signed by botocore's `SigV4Auth`, from
/// `Reference/botocore_sigv4_generated.py`: the inputs, and botocore's `Authorization` and date
/// header.
struct GeneratedBotocoreVector: Decodable, Sendable, SigningVector {
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
    var authorization: String
    /// `X-Amz-Date`, or `Date` when the request has one, as botocore set it.
    var dateHeader: [String]

    /// The unsigned request, or `nil` when Foundation reads the URL differently from botocore.
    var request: SigV4Request? {
        guard let url = URL(string: self.url), url.absoluteString == self.url, let body = Data(base64Encoded: body)
        else { return nil }
        return SigV4Request(method: method, url: url, headers: BotocoreVector.headers(headers), body: body)
    }
}

/// The generated requests, signed once by botocore for every test.
enum GeneratedBotocoreReference {
    /// How many requests the script signs.
    static let count = 10_000

    private struct Output: Decodable {
        var botocore: String
        var vectors: [GeneratedBotocoreVector]
    }

    static func vectors() async throws -> [GeneratedBotocoreVector] {
        try await shared.value.get()
    }

    private static let shared = Task {
        await BotocoreReference.run(
            script: "botocore_sigv4_generated.py",
            arguments: [String(count), "16"],
            as: Output.self
        ).map(\.vectors)
    }
}

/// The signer and the verifier against 10,000 more requests, generated more widely than the
/// vectors of ``SigV4BotocoreTests`` and signed by botocore in one Python process.
@Suite struct SigV4GeneratedBotocoreTests {
    let vectors: [GeneratedBotocoreVector]

    init() async throws {
        vectors = try await GeneratedBotocoreReference.vectors()
    }

    @Test func theGeneratedRequestsCoverEveryCase() {
        #expect(vectors.count == GeneratedBotocoreReference.count)
        func count(_ predicate: (GeneratedBotocoreVector) -> Bool) -> Int { vectors.filter(predicate).count }
        func names(_ vector: GeneratedBotocoreVector) -> [String] { vector.headers.map { $0[0].lowercased() } }

        #expect(Set(vectors.map(\.method)).count >= 10, "methods in any spelling")
        #expect(Set(vectors.map(\.service)).count >= 6)
        #expect(Set(vectors.map(\.region)).count >= 10)
        #expect(Set(vectors.map { $0.epochSeconds / 31_557_600 }).count > 100, "signing years 1970 to 2099")
        #expect(count { names($0).count >= 10 } > 1_000, "many headers")
        #expect(count { Set(names($0)).count < names($0).count } > 2_000, "repeated header names")
        #expect(count { names($0).contains { !$0.utf8.allSatisfy { $0 < 0x80 } } } > 500, "non-ASCII header names")
        #expect(count { $0.headers.contains { !$0[1].utf8.allSatisfy { $0 < 0x80 } } } > 2_000, "non-ASCII values")
        #expect(count { $0.headers.contains { $0[1].contains("\u{2028}") || $0[1].contains("\u{3000}") } } > 200)
        #expect(count { $0.headers.contains { $0[1].isEmpty } } > 500, "empty header values")
        #expect(count { $0.url.contains("%2F") } > 500, "encoded slashes")
        #expect(count { $0.url.contains("/../") || $0.url.contains("/./") || $0.url.contains("//") } > 2_000)
        #expect(count { $0.url.contains("%E2%82%AC") || $0.url.contains("%e2%82%ac") } > 500, "non-ASCII paths")
        #expect(count { $0.url.hasSuffix("&") || $0.url.contains("?&") || $0.url.contains("&&") } > 300)
        #expect(count { $0.url.contains("=&") || $0.url.hasSuffix("=") } > 1_000, "empty query values")
        #expect(count { $0.body.count > 1_300 } > 100, "bodies over 1 KB")
        #expect(count { $0.dateHeader[0] == "Date" } > 1_000, "Date headers")
    }

    @Test func signaturesOfTenThousandGeneratedRequestsMatchBotocore() throws {
        var mismatches: [String] = []
        for (index, vector) in vectors.enumerated() {
            let request = try #require(vector.request, "vector \(index): Foundation rewrites \(vector.url)")
            let signer = SigV4Signer(service: vector.service, region: vector.region)
            let signed = signer.sign(request, credentials: vector.credentials, date: vector.date)
            let date = [vector.dateHeader[0], signed.headers[vector.dateHeader[0]] ?? "(none)"]
            let token = signed.headers.values(for: "X-Amz-Security-Token")
            let expectedToken = vector.sessionToken.map { [$0] } ?? request.headers.values(for: "X-Amz-Security-Token")
            guard
                signed.headers["Authorization"] != vector.authorization || date != vector.dateHeader
                    || token != expectedToken
            else { continue }
            let canonical = signer.canonicalRequest(for: request, credentials: vector.credentials, date: vector.date)
            mismatches.append(
                "vector \(index): \(vector.method) \(vector.url)\nAuthorization: \(signed.headers["Authorization"] ?? "")\n"
                    + "botocore: \(vector.authorization)\ndate: \(date), botocore: \(vector.dateHeader)\n"
                    + "token: \(token), expected \(expectedToken)\ncanonical request:\n\(canonical)"
            )
        }
        for report in mismatches.prefix(5) {
            Issue.record(Comment(rawValue: report))
        }
        #expect(mismatches.count == 0, "\(mismatches.count) of \(vectors.count) signatures differ from botocore")
    }

    @Test func urlRequestSignaturesOfTheGeneratedRequestsMatchBotocore() throws {
        var signedCount = 0
        var mismatches: [String] = []
        for (index, vector) in vectors.enumerated() {
            // A URLRequest holds one value per name and some values only as sent on the wire.
            let names = vector.headers.map { $0[0].lowercased() }
            guard Set(names).count == names.count, let request = vector.request else { continue }
            var urlRequest = URLRequest(url: request.url)
            urlRequest.httpMethod = vector.method
            urlRequest.httpBody = request.body.isEmpty ? nil : request.body
            for field in request.headers {
                urlRequest.setValue(field.value, forHTTPHeaderField: field.name)
            }
            guard request.headers.allSatisfy({ urlRequest.value(forHTTPHeaderField: $0.name) == $0.value }) else {
                continue
            }
            let signer = SigV4Signer(service: vector.service, region: vector.region)
            let signed = signer.sign(urlRequest, credentials: vector.credentials, date: vector.date)
            signedCount += 1
            let authorization = signed.value(forHTTPHeaderField: "Authorization")
            let date = signed.value(forHTTPHeaderField: vector.dateHeader[0])
            if authorization != vector.authorization || date != vector.dateHeader[1] {
                mismatches.append(
                    "vector \(index): \(vector.method) \(vector.url)\nAuthorization: \(authorization ?? "(none)")\n"
                        + "botocore: \(vector.authorization)\ndate: \(date ?? "(none)"), botocore: \(vector.dateHeader)"
                )
            }
        }
        for report in mismatches.prefix(5) {
            Issue.record(Comment(rawValue: report))
        }
        #expect(mismatches.count == 0, "\(mismatches.count) of \(signedCount) URLRequest signatures differ")
        #expect(signedCount > 3_000)
    }

    /// The first 2,000 requests, signed and then verified: the verifier shares the signer's
    /// canonical request, so this checks the parsing around it, and keeps the suite quick.
    @Test func theVerifierAcceptsTheGeneratedRequests() throws {
        var check = VerifierCheck()
        for (index, vector) in vectors.prefix(2_000).enumerated() {
            var request = try #require(vector.request)
            let signer = SigV4Signer(service: vector.service, region: vector.region)
            request = signer.sign(request, credentials: vector.credentials, date: vector.date)
            if !request.headers.contains(name: "Host") {
                request.headers.add(name: "Host", value: SigV4Request.hostHeaderValue(for: request.url))
            }
            check.check(request, signedAs: vector, index: index)
        }
        check.recordFailures()
        #expect(check.failures.count == 0, "\(check.failures.count) of 2,000 verifications went wrong")
        #expect(check.accepted > 1_000)
    }
}
