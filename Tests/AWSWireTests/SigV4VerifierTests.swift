import AWSWire
import Foundation
import Testing

private let akid = "AKIDEXAMPLE"
private let secret = "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY"
private let temporaryKey = "ASIAEXAMPLE"
private let temporarySecret = "temporary-secret"
private let sessionToken = "session-token"

/// 2024-01-02T03:04:05Z.
private let signedAt = Date(timeIntervalSince1970: 1_704_164_645)

private let signer = SigV4Signer(service: "appsync", region: "us-east-1")

private let verifier = SigV4Verifier(service: "appsync", region: "us-east-1") { accessKeyId in
    switch accessKeyId {
    case akid: return (secretAccessKey: secret, sessionToken: nil)
    case temporaryKey: return (secretAccessKey: temporarySecret, sessionToken: sessionToken)
    default: return nil
    }
}

private let mismatch =
    "The request signature we calculated does not match the signature you provided. "
    + "Check your AWS Secret Access Key and signing method."
private let invalidToken = "The security token included in the request is invalid."

/// A GraphQL request as a client sends it, Host header included.
private func graphQLRequest(
    query: String? = nil,
    body: String = #"{"query":"{ hello }"}"#
) -> SigV4Request {
    let url = URL(string: "https://x.appsync-api.us-east-1.amazonaws.com/graphql" + (query.map { "?" + $0 } ?? ""))!
    return SigV4Request(
        method: "POST",
        url: url,
        headers: ["Host": "x.appsync-api.us-east-1.amazonaws.com", "Content-Type": "application/json"],
        body: Data(body.utf8)
    )
}

private func signed(
    _ request: SigV4Request = graphQLRequest(),
    key: String = akid,
    secret: String = secret,
    token: String? = nil,
    at date: Date = signedAt,
    by signer: SigV4Signer = signer
) -> SigV4Request {
    signer.sign(
        request,
        credentials: AWSCredentials(accessKeyId: key, secretAccessKey: secret, sessionToken: token),
        date: date
    )
}

/// The error `verifier` throws for `request`, failing the test when it accepts it.
private func refusal(
    _ request: SigV4Request,
    now: Date = signedAt,
    by verifier: SigV4Verifier = verifier,
    sourceLocation: SourceLocation = #_sourceLocation
) -> SigV4VerificationError? {
    #expect(throws: SigV4VerificationError.self, sourceLocation: sourceLocation) {
        try verifier.verify(request, now: now)
    }
}

// MARK: - Accepted requests

@Test func signedRequestsIdentifyTheirAccessKey() throws {
    let identity = try verifier.verify(signed(), now: signedAt)
    #expect(identity == SigV4Verifier.Signer(accessKeyId: akid, signingDate: signedAt))
}

@Test func temporaryCredentialsAreAcceptedWithTheirToken() throws {
    let request = signed(key: temporaryKey, secret: temporarySecret, token: sessionToken)
    #expect(try verifier.verify(request, now: signedAt).accessKeyId == temporaryKey)
}

@Test func requestsWithQueriesAndBinaryBodiesAreAccepted() throws {
    var request = graphQLRequest(query: "b=2&a=%E2%82%AC&a=&flag")
    request.body = Data([0x00, 0xFF, 0x10, 0x80])
    request.headers.add(name: "X-Tag", value: "  a   b ")
    request.headers.add(name: "x-tag", value: "c")
    #expect(try verifier.verify(signed(request), now: signedAt).accessKeyId == akid)
}

@Test func theRawPathAndQueryCanBeGivenDirectly() throws {
    let request = signed(graphQLRequest(query: "x=%2F&y"))
    let identity = try verifier.verify(
        method: "POST",
        path: "/graphql",
        query: "x=%2F&y",
        headers: request.headers,
        body: request.body,
        now: signedAt
    )
    #expect(identity.accessKeyId == akid)
}

@Test func requestsSignedWithADateHeaderAreAccepted() throws {
    var request = graphQLRequest()
    request.headers.add(name: "Date", value: "now")
    let signedRequest = signed(request)
    #expect(signedRequest.headers["Date"] == "Tue, 02 Jan 2024 03:04:05 -0000")
    #expect(try verifier.verify(signedRequest, now: signedAt).signingDate == signedAt)

    // The request time is read from the Date header, numeric zones included.
    request = signedRequest
    request.headers["Date"] = "Tue, 02 Jan 2024 03:04:05 +0100"
    #expect(
        refusal(request)?.description
            == "Signature expired: 20240102T020405Z is now earlier than 20240102T024905Z (20240102T030405Z - 15 min.)"
    )
    request.headers["Date"] = "02 Jan 2024 03:04:05 GMT"
    #expect(refusal(request)?.description == mismatch)
}

@Test func headersThatWereNotSignedMayChange() throws {
    var request = signed()
    request.headers.add(name: "User-Agent", value: "added later")
    request.headers.add(name: "X-Forwarded-For", value: "10.0.0.1")
    #expect(try verifier.verify(request, now: signedAt).accessKeyId == akid)
}

@Test func requestsWithinTheClockSkewAreAccepted() throws {
    let request = signed()
    for offset: TimeInterval in [-15 * 60, -1, 0, 1, 15 * 60] {
        #expect(try verifier.verify(request, now: signedAt.addingTimeInterval(offset)).accessKeyId == akid)
    }
}

// MARK: - Tampering

@Test func aChangedBodyIsRefused() throws {
    var request = signed()
    request.body = Data(#"{"query":"{ secrets }"}"#.utf8)
    let error = refusal(request)
    #expect(error?.description == mismatch)
    #expect(error?.errorType == "InvalidSignatureException")
    #expect(
        error?.expectedCanonicalRequest
            == """
            POST
            /graphql

            content-type:application/json
            host:x.appsync-api.us-east-1.amazonaws.com
            x-amz-date:20240102T030405Z

            content-type;host;x-amz-date
            bec583905ab79b292053d1373e1a71558dc165d2fb80cbead49d354abec2da0c
            """
    )
    #expect(error?.expectedStringToSign?.hasPrefix("AWS4-HMAC-SHA256\n20240102T030405Z\n") == true)
}

@Test func aChangedSignedHeaderIsRefused() throws {
    var request = signed()
    request.headers["Content-Type"] = "text/plain"
    #expect(refusal(request)?.description == mismatch)
}

@Test func aRemovedSignedHeaderIsRefused() throws {
    var request = signed()
    request.headers["Content-Type"] = nil
    #expect(refusal(request)?.description == mismatch)
}

@Test func aRepeatedSignedHeaderIsRefused() throws {
    var request = signed()
    request.headers.add(name: "content-type", value: "text/plain")
    #expect(refusal(request)?.description == mismatch)
}

@Test func aChangedPathMethodOrQueryIsRefused() throws {
    let request = signed(graphQLRequest(query: "a=1"))
    var changed = request
    changed.method = "GET"
    #expect(refusal(changed)?.description == mismatch)
    changed = request
    changed.url = URL(string: "https://x.appsync-api.us-east-1.amazonaws.com/graphql?a=2")!
    #expect(refusal(changed)?.description == mismatch)
    changed.url = URL(string: "https://x.appsync-api.us-east-1.amazonaws.com/graphql/?a=1")!
    #expect(refusal(changed)?.description == mismatch)
}

@Test func aChangedSignatureIsRefused() throws {
    var request = signed()
    let authorization = try #require(request.headers["Authorization"])
    let last = authorization.last == "0" ? "1" : "0"
    request.headers["Authorization"] = String(authorization.dropLast()) + last
    #expect(refusal(request)?.description == mismatch)
}

@Test func aWrongSecretIsRefused() throws {
    let error = refusal(signed(secret: "not-the-secret"))
    #expect(error?.description == mismatch)
    #expect(error?.errorType == "InvalidSignatureException")
}

// MARK: - Keys and tokens

@Test func unknownAccessKeysAreRefused() throws {
    let error = refusal(signed(key: "AKIDUNKNOWN"))
    #expect(error?.description == invalidToken)
    #expect(error?.errorType == "UnrecognizedClientException")
}

@Test func sessionTokensMustMatchTheKey() throws {
    // The wrong token, no token, a token for long-term keys.
    let requests = [
        signed(key: temporaryKey, secret: temporarySecret, token: "other-token"),
        signed(key: temporaryKey, secret: temporarySecret),
        signed(key: akid, secret: secret, token: sessionToken),
    ]
    for request in requests {
        let error = refusal(request)
        #expect(error?.description == invalidToken)
        #expect(error?.errorType == "UnrecognizedClientException")
    }
}

// MARK: - Time

@Test func expiredSignaturesAreRefused() throws {
    let error = refusal(signed(), now: signedAt.addingTimeInterval(15 * 60 + 1))
    #expect(
        error?.description
            == "Signature expired: 20240102T030405Z is now earlier than 20240102T030406Z (20240102T031906Z - 15 min.)"
    )
    #expect(error?.errorType == "InvalidSignatureException")
}

@Test func signaturesFromTheFutureAreRefused() throws {
    let error = refusal(signed(), now: signedAt.addingTimeInterval(-(15 * 60 + 1)))
    #expect(
        error?.description
            == "Signature not yet current: 20240102T030405Z is still later than 20240102T030404Z "
            + "(20240102T024904Z + 15 min.)"
    )
}

@Test func theClockSkewCanBeChanged() throws {
    let strict = SigV4Verifier(service: "appsync", region: "us-east-1", clockSkew: 5 * 60) { _ in (secret, nil) }
    #expect(strict.clockSkew == 300)
    #expect(try strict.verify(signed(), now: signedAt.addingTimeInterval(300)).accessKeyId == akid)
    #expect(
        refusal(signed(), now: signedAt.addingTimeInterval(301), by: strict)?.description
            == "Signature expired: 20240102T030405Z is now earlier than 20240102T030406Z (20240102T030906Z - 5 min.)"
    )
    let seconds = SigV4Verifier(service: "appsync", region: "us-east-1", clockSkew: 90) { _ in (secret, nil) }
    #expect(
        refusal(signed(), now: signedAt.addingTimeInterval(-91), by: seconds)?.description
            == "Signature not yet current: 20240102T030405Z is still later than 20240102T030404Z "
            + "(20240102T030234Z + 90 sec.)"
    )
}

@Test func aDateOutsideTheCredentialScopeIsRefused() throws {
    var request = signed()
    request.headers["X-Amz-Date"] = "20240103T000000Z"
    #expect(
        refusal(request, now: Date(timeIntervalSince1970: 1_704_240_000))?.description
            == "Date in Credential scope does not match YYYYMMDD from ISO-8601 version of date from HTTP: "
            + "'20240102' != '20240103', from '20240103T000000Z'."
    )
}

@Test(arguments: ["2024-01-02T03:04:05Z", "20240102T030405", "20241302T030405Z", "20240230T030405Z", ""])
func malformedDatesAreRefused(value: String) throws {
    var request = signed()
    request.headers["X-Amz-Date"] = value
    #expect(
        refusal(request)?.description
            == "Date must be in ISO-8601 'basic format'. Got '\(value)'. See http://en.wikipedia.org/wiki/ISO_8601"
    )
}

@Test func malformedHTTPDatesAreRefused() throws {
    var request = graphQLRequest()
    request.headers.add(name: "Date", value: "now")
    var signedRequest = signed(request)
    signedRequest.headers["Date"] = "02/01/2024 03:04:05"
    #expect(
        refusal(signedRequest)?.description
            == "Date must be an HTTP date such as 'Tue, 02 Jan 2024 03:04:05 GMT'. Got '02/01/2024 03:04:05'."
    )
}

// MARK: - Malformed Authorization headers

@Test func requestsWithoutAuthorizationAreRefused() throws {
    var request = signed()
    request.headers["Authorization"] = nil
    let error = refusal(request)
    #expect(error?.description == "Missing Authentication Token")
    #expect(error?.errorType == "MissingAuthenticationTokenException")
}

@Test func requestsWithoutADateAreRefused() throws {
    var request = signed()
    request.headers["X-Amz-Date"] = nil
    let authorization = try #require(request.headers["Authorization"])
    let error = refusal(request)
    #expect(
        error?.description
            == "Authorization header requires existence of either a 'X-Amz-Date' or a 'Date' header. "
            + "Authorization=\(authorization)"
    )
    #expect(error?.errorType == "IncompleteSignatureException")
}

@Test func tokensOfOtherSchemesAreRefused() throws {
    var request = graphQLRequest()
    request.headers["Authorization"] = "eyJhbGciOiJIUzI1NiJ9.e30.sig"
    #expect(
        refusal(request)?.description
            == "Authorization header requires 'Credential' parameter. "
            + "Authorization header requires 'Signature' parameter. "
            + "Authorization header requires 'SignedHeaders' parameter. "
            + "Authorization header requires existence of either a 'X-Amz-Date' or a 'Date' header. "
            + "Authorization=eyJhbGciOiJIUzI1NiJ9.e30.sig"
    )
}

@Test func missingParametersAreNamed() throws {
    var request = signed()
    let header = "AWS4-HMAC-SHA256 Credential=\(akid)/20240102/us-east-1/appsync/aws4_request"
    request.headers["Authorization"] = header
    let error = refusal(request)
    #expect(
        error?.description
            == "Authorization header requires 'Signature' parameter. "
            + "Authorization header requires 'SignedHeaders' parameter. Authorization=\(header)"
    )
    #expect(error?.errorType == "IncompleteSignatureException")
}

@Test func parametersWithoutAnEqualSignAreRefused() throws {
    var request = signed()
    let header =
        "AWS4-HMAC-SHA256 Credential= \(akid)/20240102/us-east-1/appsync/aws4_request, "
        + "SignedHeaders=host;x-amz-date, Signature"
    request.headers["Authorization"] = header
    #expect(
        refusal(request)?.description
            == "'Signature' not a valid key=value pair (missing equal-sign) in Authorization header: '\(header)'."
    )
}

@Test(arguments: ["AKID/20240102/us-east-1/appsync", "/20240102/us-east-1/appsync/aws4_request", "AKID"])
func malformedCredentialsAreRefused(credential: String) throws {
    var request = signed()
    request.headers["Authorization"] =
        "AWS4-HMAC-SHA256 Credential=\(credential), SignedHeaders=host;x-amz-date, Signature=00"
    #expect(
        refusal(request)?.description
            == "The authorization header is malformed; the Credential is mal-formed; "
            + "expecting \"<YOUR-AKID>/YYYYMMDD/REGION/SERVICE/aws4_request\"."
    )
}

@Test func credentialsScopedElsewhereAreRefused() throws {
    let wrongRegion = signed(by: SigV4Signer(service: "appsync", region: "eu-west-1"))
    #expect(refusal(wrongRegion)?.description == "Credential should be scoped to a valid region, not 'eu-west-1'.")

    let wrongService = signed(by: SigV4Signer(service: "execute-api", region: "us-east-1"))
    #expect(refusal(wrongService)?.description == "Credential should be scoped to correct service: 'appsync'.")

    var wrongTerminator = signed()
    wrongTerminator.headers["Authorization"] = wrongTerminator.headers["Authorization"]!
        .replacingOccurrences(of: "/aws4_request", with: "/aws5_request")
    #expect(
        refusal(wrongTerminator)?.description
            == "Credential should be scoped with a valid terminator: 'aws4_request', not 'aws5_request'."
    )
}

@Test func theHostMustBeSigned() throws {
    var request = signed()
    request.headers["Authorization"] = request.headers["Authorization"]!
        .replacingOccurrences(of: "SignedHeaders=content-type;host;x-amz-date", with: "SignedHeaders=x-amz-date")
    #expect(
        refusal(request)?.description == "'Host' or ':authority' must be a 'SignedHeader' in the AWS Authorization."
    )
}

// MARK: - Against botocore

@Suite struct VerifierAgainstBotocoreTests {
    let vectors: [BotocoreVector]

    init() async throws {
        vectors = try await BotocoreReference.vectors().get().vectors
    }

    @Test func theVerifierAcceptsWhatBotocoreSigned() throws {
        var check = VerifierCheck()
        for (index, vector) in vectors.enumerated() {
            check.check(try #require(vector.signedRequest), signedAs: vector, index: index)
        }
        check.recordFailures()
        #expect(check.failures.count == 0, "\(check.failures.count) of \(vectors.count) verifications went wrong")
        #expect(check.accepted > 450)
    }

    @Test func theVerifierRefusesBotocoreRequestsWithAChangedBody() throws {
        for vector in vectors.prefix(100) {
            var request = try #require(vector.signedRequest)
            request.body.append(0x20)
            let verifier = SigV4Verifier(service: vector.service, region: vector.region) { _ in
                (vector.secretAccessKey, vector.sessionToken)
            }
            #expect(throws: SigV4VerificationError.self) {
                try verifier.verify(request, now: vector.date)
            }
        }
    }
}
