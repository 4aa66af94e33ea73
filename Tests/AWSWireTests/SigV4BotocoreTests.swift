import AWSWire
import Foundation
import Testing

/// SigV4Signer against requests generated and signed by botocore.
@Suite struct SigV4BotocoreTests {
    let vectors: [BotocoreVector]

    init() async throws {
        vectors = try await BotocoreReference.vectors().get().vectors
    }

    @Test func theReferenceCoversEveryCase() throws {
        #expect(vectors.count == BotocoreReference.count)
        func count(_ predicate: (BotocoreVector) -> Bool) -> Int { vectors.filter(predicate).count }
        func names(_ vector: BotocoreVector) -> [String] { vector.headers.map { $0[0].lowercased() } }

        for method in ["GET", "POST", "PUT", "DELETE", "PATCH", "HEAD"] {
            #expect(count { $0.method == method } > 20, "method \(method)")
        }
        for service in ["appsync", "execute-api"] {
            #expect(count { $0.service == service } > 100, "service \(service)")
        }
        #expect(Set(vectors.map(\.region)).count >= 5)
        #expect(Set(vectors.map(\.epochSeconds)).count >= 5)
        #expect(count { $0.sessionToken != nil } > 100)
        #expect(count { $0.sessionToken == nil } > 100)
        #expect(count { $0.body.isEmpty } > 50)
        #expect(count { $0.bodyData.contains(0xFF) || $0.bodyData.contains(0x00) } > 20, "binary bodies")
        #expect(count { $0.url.contains("%25") || $0.canonicalRequest.contains("%2525") } > 20, "escaped %")
        #expect(count { $0.url.contains("/../") || $0.url.contains("/./") } > 20, "dot segments")
        #expect(count { $0.url.contains("//") && $0.url.dropFirst(8).contains("//") } > 20, "empty segments")
        #expect(count { $0.url.contains("%E2%82%AC") || $0.url.contains("%e2%82%ac") } > 20, "unicode in URLs")
        #expect(count { $0.url.contains("'") || $0.url.contains("!") || $0.url.contains("*") } > 20, "sub-delims")
        #expect(count { $0.url.hasSuffix("?") } > 20, "empty queries")
        #expect(count { $0.url.contains("=&") || $0.url.hasSuffix("=") } > 50, "empty values")
        #expect(count { $0.url.contains("&flag") } > 5, "names without =")
        #expect(count { $0.url.contains("&&") } > 5, "empty pairs")
        #expect(
            count { vector in
                let pairs = vector.url.split(separator: "?").dropFirst().first?.split(separator: "&") ?? []
                let names = pairs.map { $0.split(separator: "=", omittingEmptySubsequences: false)[0] }
                return Set(names).count < names.count
            } > 50,
            "repeated query names"
        )
        #expect(count { Set(names($0)).count < names($0).count } > 50, "repeated header names")
        #expect(count { $0.headers.contains { $0[1].contains("\r\n") } } > 50, "folded header values")
        #expect(count { $0.headers.contains { $0[1].contains("  ") || $0[1].contains("\t") } } > 50)
        #expect(count { names($0).contains("user-agent") } > 20, "unsigned headers")
        #expect(count { names($0).contains("date") } > 10, "Date headers")
        #expect(count { names($0).contains("host") } > 20, "explicit Host headers")
        #expect(count { names($0).contains("x-amz-content-sha256") } > 5, "payload hash headers")
        #expect(count { $0.url.hasPrefix("http://") } > 50)
        #expect(count { $0.url.contains("[") } > 20, "IPv6 hosts")
    }

    @Test func signaturesMatchBotocoreByteForByte() throws {
        var mismatches: [String] = []
        for (index, vector) in vectors.enumerated() {
            let request = try #require(vector.request, "vector \(index): Foundation rewrites \(vector.url)")
            let signer = SigV4Signer(service: vector.service, region: vector.region)
            let signed = signer.sign(request, credentials: vector.credentials, date: vector.date)
            let headers = signed.headers.map { [$0.name, $0.value] }
            guard headers != vector.signedHeaders || signed.headers["Authorization"] != vector.authorization else {
                continue
            }
            let canonical = signer.canonicalRequest(for: request, credentials: vector.credentials, date: vector.date)
            let stringToSign = signer.stringToSign(for: request, credentials: vector.credentials, date: vector.date)
            var report = "vector \(index): \(vector.method) \(vector.url)\n"
            if canonical != vector.canonicalRequest {
                report += "canonical request:\n\(canonical)\nbotocore:\n\(vector.canonicalRequest)\n"
            } else if stringToSign != vector.stringToSign {
                report += "string to sign:\n\(stringToSign)\nbotocore:\n\(vector.stringToSign)\n"
            }
            report += "headers:\n\(headers)\nbotocore:\n\(vector.signedHeaders)"
            mismatches.append(report)
        }
        for report in mismatches.prefix(5) {
            Issue.record(Comment(rawValue: report))
        }
        #expect(mismatches.count == 0, "\(mismatches.count) of \(vectors.count) signatures differ from botocore")
    }

    @Test func intermediateStepsMatchBotocore() throws {
        for vector in vectors {
            let request = try #require(vector.request)
            let signer = SigV4Signer(service: vector.service, region: vector.region)
            let canonical = signer.canonicalRequest(for: request, credentials: vector.credentials, date: vector.date)
            let stringToSign = signer.stringToSign(for: request, credentials: vector.credentials, date: vector.date)
            guard canonical == vector.canonicalRequest, stringToSign == vector.stringToSign else {
                #expect(canonical == vector.canonicalRequest)
                #expect(stringToSign == vector.stringToSign)
                return
            }
        }
    }
}
