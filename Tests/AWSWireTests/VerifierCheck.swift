import AWSWire
import Foundation
import Testing

/// Runs signed requests through `SigV4Verifier` as the server would, 90 s after signing, and
/// counts those accepted with the signer's identity, and those that went wrong: accepted when
/// AWS would refuse them, or refused with another message.
struct VerifierCheck {
    private(set) var accepted = 0
    private(set) var failures: [String] = []

    /// Verifies `request`, signed with the keys and scope of `signed`.
    mutating func check(_ request: SigV4Request, signedAs signed: some SigningVector, index: Int) {
        let (signer, secret, token) = (signed.accessKeyId, signed.secretAccessKey, signed.sessionToken)
        let verifier = SigV4Verifier(service: signed.service, region: signed.region) { accessKeyId in
            accessKeyId == signer ? (secret, token) : nil
        }
        let expectedError = Self.expectedError(for: request, signedAs: signed)
        do {
            let identity = try verifier.verify(request, now: signed.date.addingTimeInterval(90))
            if let expectedError {
                failures.append("vector \(index) was accepted; expected \(expectedError)")
            } else if identity.accessKeyId != signed.accessKeyId || identity.signingDate != signed.date {
                failures.append("vector \(index): identity \(identity)")
            } else {
                accepted += 1
            }
        } catch {
            if "\(error)" != expectedError {
                failures.append("vector \(index): \(error); expected \(expectedError ?? "acceptance")")
            }
        }
    }

    /// Records the first failures as issues.
    func recordFailures() {
        for failure in failures.prefix(5) {
            Issue.record(Comment(rawValue: failure))
        }
    }

    /// What the verifier must say of a signed request that AWS would refuse, or `nil`.
    private static func expectedError(for request: SigV4Request, signedAs signed: some SigningVector) -> String? {
        // A leftover session token on a request signed with long-term keys.
        if signed.sessionToken == nil, let token = request.headers["X-Amz-Security-Token"], !token.isEmpty {
            return "The security token included in the request is invalid."
        }
        // botocore signs a stated payload hash as it is; the verifier hashes the body it received.
        if request.headers.contains(name: "X-Amz-Content-SHA256") {
            return "The request signature we calculated does not match the signature you provided. "
                + "Check your AWS Secret Access Key and signing method."
        }
        return nil
    }
}

/// The keys and scope a reference request was signed with.
protocol SigningVector {
    var accessKeyId: String { get }
    var secretAccessKey: String { get }
    var sessionToken: String? { get }
    var service: String { get }
    var region: String { get }
    var epochSeconds: Int64 { get }
}

extension SigningVector {
    var date: Date { Date(timeIntervalSince1970: TimeInterval(epochSeconds)) }

    var credentials: AWSCredentials {
        AWSCredentials(accessKeyId: accessKeyId, secretAccessKey: secretAccessKey, sessionToken: sessionToken)
    }
}
