/// The parts of a SigV4 `Authorization` header.
///
/// `AWS4-HMAC-SHA256 Credential=AKID/20240102/us-east-1/appsync/aws4_request,
/// SignedHeaders=host;x-amz-date, Signature=5d67…`
struct SigV4Authorization: Hashable {
    var accessKeyId: String
    var scopeDate: String
    var region: String
    var service: String
    var terminator: String
    /// The `SignedHeaders` value as sent: lowercased names separated by `;`.
    var signedHeaders: String
    var signature: String

    /// The signed header names, in the order they were signed.
    var signedHeaderNames: [String] {
        signedHeaders.split(separator: ";", omittingEmptySubsequences: false).map(String.init)
    }

    /// Parses `header`; `hasDate` says whether the request has an `X-Amz-Date` or `Date` header,
    /// which AWS reports together with missing parameters.
    ///
    /// - Throws: ``SigV4VerificationError`` for a header that is not SigV4, lacks a parameter or
    ///   has a malformed credential.
    init(parsing header: String, hasDate: Bool) throws {
        let trimmed = header.trimmingWhitespace()
        let algorithm = trimmed.prefix { $0 != " " }
        guard algorithm == SigV4Canonical.algorithm else {
            throw SigV4VerificationError.missingParts(
                ["Credential", "Signature", "SignedHeaders"],
                date: !hasDate,
                authorization: header
            )
        }
        var parameters: [String: String] = [:]
        for pair in trimmed.dropFirst(algorithm.count).split(separator: ",") {
            let pair = pair.trimmingWhitespace()
            guard !pair.isEmpty else { continue }
            guard let equals = pair.firstIndex(of: "=") else {
                throw SigV4VerificationError.missingEqualSign(String(pair), authorization: header)
            }
            let name = String(pair[..<equals])
            if parameters[name] == nil {
                parameters[name] = String(pair[pair.index(after: equals)...])
            }
        }
        let missing = ["Credential", "Signature", "SignedHeaders"].filter { parameters[$0] == nil }
        guard missing.isEmpty, hasDate, let credential = parameters["Credential"],
            let signedHeaders = parameters["SignedHeaders"], let signature = parameters["Signature"]
        else {
            throw SigV4VerificationError.missingParts(missing, date: !hasDate, authorization: header)
        }
        let scope = credential.split(separator: "/", omittingEmptySubsequences: false).map(String.init)
        guard scope.count == 5, !scope[0].isEmpty else {
            throw SigV4VerificationError.malformedCredential
        }
        self.accessKeyId = scope[0]
        self.scopeDate = scope[1]
        self.region = scope[2]
        self.service = scope[3]
        self.terminator = scope[4]
        self.signedHeaders = signedHeaders
        self.signature = signature
    }
}

extension StringProtocol {
    /// The text without leading and trailing spaces and tabs.
    fileprivate func trimmingWhitespace() -> SubSequence {
        let isBlank: (Character) -> Bool = { $0 == " " || $0 == "\t" }
        guard let start = firstIndex(where: { !isBlank($0) }) else { return self[endIndex...] }
        let end = lastIndex(where: { !isBlank($0) })!
        return self[start...end]
    }
}
