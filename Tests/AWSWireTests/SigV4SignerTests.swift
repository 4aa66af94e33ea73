import AWSPluginsCore
import AWSWire
import Foundation
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

private let example = AWSCredentials(
    accessKeyId: "AKIDEXAMPLE",
    secretAccessKey: "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY"
)

/// 2024-01-02T03:04:05Z.
private let signingDate = Date(timeIntervalSince1970: 1_704_164_645)

private let appSyncURL = URL(string: "https://x.appsync-api.us-east-1.amazonaws.com/graphql")!

private func canonicalRequestLines(
    _ url: String,
    method: String = "GET",
    headers: SigV4Request.Headers = [:],
    body: Data = Data()
) throws -> [Substring] {
    let request = SigV4Request(method: method, url: try #require(URL(string: url)), headers: headers, body: body)
    return SigV4Signer(service: "execute-api", region: "us-east-1")
        .canonicalRequest(for: request, credentials: example, date: signingDate)
        .split(separator: "\n", omittingEmptySubsequences: false)
}

// MARK: - Published examples

/// The example of the AWS Signature Version 4 documentation (IAM ListUsers).
@Test func signsTheDocumentedIAMExample() throws {
    let request = SigV4Request(
        method: "GET",
        url: URL(string: "https://iam.amazonaws.com/?Action=ListUsers&Version=2010-05-08")!,
        headers: ["Content-Type": "application/x-www-form-urlencoded; charset=utf-8"]
    )
    let signer = SigV4Signer(service: "iam", region: "us-east-1")
    let date = Date(timeIntervalSince1970: 1_440_938_160)  // 2015-08-30T12:36:00Z
    #expect(
        signer.canonicalRequest(for: request, credentials: example, date: date)
            == """
            GET
            /
            Action=ListUsers&Version=2010-05-08
            content-type:application/x-www-form-urlencoded; charset=utf-8
            host:iam.amazonaws.com
            x-amz-date:20150830T123600Z

            content-type;host;x-amz-date
            e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855
            """
    )
    #expect(
        signer.stringToSign(for: request, credentials: example, date: date)
            == """
            AWS4-HMAC-SHA256
            20150830T123600Z
            20150830/us-east-1/iam/aws4_request
            f536975d06c0309214f805bb90ccff089219ecd68b2577efef23edd43b7e1a59
            """
    )
    #expect(
        signer.sign(request, credentials: example, date: date).headers["Authorization"]
            == "AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE/20150830/us-east-1/iam/aws4_request, "
            + "SignedHeaders=content-type;host;x-amz-date, "
            + "Signature=5d672d79c15b13162d9279b0855cfba6789a8edb4c82c400e06b5924a6f2b5d7"
    )
}

/// A GraphQL request signed by botocore 1.43 (the example of ORACLES.md).
@Test func signsAnAppSyncRequestAsBotocoreDoes() throws {
    let request = SigV4Request(
        method: "POST",
        url: appSyncURL,
        headers: ["content-type": "application/json"],
        body: Data(#"{"query":"{ hello }"}"#.utf8)
    )
    let signer = SigV4Signer(service: "appsync", region: "us-east-1")
    #expect(
        signer.canonicalRequest(for: request, credentials: example, date: signingDate)
            == """
            POST
            /graphql

            content-type:application/json
            host:x.appsync-api.us-east-1.amazonaws.com
            x-amz-date:20240102T030405Z

            content-type;host;x-amz-date
            72f8932914f2515e11bcd11d826b96b3ceb71a1185f3785dacc0de8cb79471ff
            """
    )
    let signed = signer.sign(request, credentials: example, date: signingDate)
    #expect(
        signed.headers
            == [
                "content-type": "application/json",
                "X-Amz-Date": "20240102T030405Z",
                "Authorization": "AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE/20240102/us-east-1/appsync/aws4_request, "
                    + "SignedHeaders=content-type;host;x-amz-date, "
                    + "Signature=bee579888dd75f0fd5fef86350291cfa7fb539f2ed653731b849bbbfc56c8d4a",
            ]
    )
    #expect(signed.url == request.url)
    #expect(signed.body == request.body)
    #expect(signed.method == "POST")
}

// MARK: - Added headers

@Test func temporaryCredentialsAddASignedSessionToken() throws {
    let request = SigV4Request(method: "POST", url: appSyncURL, headers: ["X-Amz-Security-Token": "stale"])
    var credentials = example
    credentials.sessionToken = "session-token"
    let signer = SigV4Signer(service: "appsync", region: "us-east-1")
    let signed = signer.sign(request, credentials: credentials, date: signingDate)
    #expect(signed.headers.map(\.name) == ["X-Amz-Date", "X-Amz-Security-Token", "Authorization"])
    #expect(signed.headers.values(for: "x-amz-security-token") == ["session-token"])
    #expect(signed.headers["Authorization"]?.contains("SignedHeaders=host;x-amz-date;x-amz-security-token,") == true)
}

@Test func anEmptySessionTokenIsNotSent() throws {
    var credentials = example
    credentials.sessionToken = ""
    let signed = SigV4Signer(service: "appsync", region: "us-east-1")
        .sign(SigV4Request(method: "POST", url: appSyncURL), credentials: credentials, date: signingDate)
    #expect(signed.headers.map(\.name) == ["X-Amz-Date", "Authorization"])
}

@Test func signingAgainReplacesThePreviousSignature() throws {
    let request = SigV4Request(method: "POST", url: appSyncURL, headers: ["content-type": "application/json"])
    var credentials = example
    credentials.sessionToken = "token"
    let signer = SigV4Signer(service: "appsync", region: "us-east-1")
    let later = signingDate.addingTimeInterval(3600)
    let once = signer.sign(request, credentials: credentials, date: signingDate)
    let twice = signer.sign(once, credentials: credentials, date: later)
    #expect(twice == signer.sign(request, credentials: credentials, date: later))
    #expect(twice.headers.values(for: "authorization").count == 1)
    #expect(twice.headers.values(for: "x-amz-date") == ["20240102T040405Z"])
}

@Test func aDateHeaderIsRewrittenInsteadOfAddingXAmzDate() throws {
    let lines = try canonicalRequestLines(
        "https://h.example.com/",
        headers: ["Date": "Mon, 01 Jan 2001 00:00:00 GMT", "X-Amz-Date": "20010101T000000Z"]
    )
    #expect(lines[3] == "date:Tue, 02 Jan 2024 03:04:05 -0000")
    #expect(lines[4] == "host:h.example.com")
    #expect(lines[6] == "date;host")

    let request = SigV4Request(method: "GET", url: URL(string: "https://h.example.com/")!, headers: ["date": "x"])
    let signed = SigV4Signer(service: "execute-api", region: "us-east-1")
        .sign(request, credentials: example, date: signingDate)
    #expect(signed.headers.map(\.name) == ["Date", "Authorization"])
    #expect(signed.headers["Date"] == "Tue, 02 Jan 2024 03:04:05 -0000")
}

@Test func fractionsOfASecondAreDropped() throws {
    let request = SigV4Request(method: "GET", url: appSyncURL)
    let signer = SigV4Signer(service: "appsync", region: "us-east-1")
    #expect(
        signer.sign(request, credentials: example, date: signingDate.addingTimeInterval(0.999))
            == signer.sign(request, credentials: example, date: signingDate)
    )
}

// MARK: - Canonical forms

@Test(
    arguments: [
        ("https://h.example.com", "/"),
        ("https://h.example.com/", "/"),
        ("https://h.example.com/a/./b/../c//d/", "/a/c/d/"),
        ("https://h.example.com/../..", "/"),
        ("https://h.example.com/a/..", "/"),
        ("https://h.example.com/a%20b/%E2%82%AC/%c3%a9", "/a%2520b/%25E2%2582%25AC/%25c3%25a9"),
        ("https://h.example.com/!$&'()*+,;=:@-._~", "/%21%24%26%27%28%29%2A%2B%2C%3B%3D%3A%40-._~"),
        ("https://h.example.com/a%2Fb", "/a%252Fb"),
    ]
)
func pathsAreNormalizedAndEncodedTwice(url: String, canonicalURI: String) throws {
    #expect(try canonicalRequestLines(url)[1] == canonicalURI[...])
}

@Test(
    arguments: [
        ("https://h.example.com/", ""),
        ("https://h.example.com/?", ""),
        ("https://h.example.com/?b=2&a=&a=1&c", "a=&a=1&b=2&c="),
        ("https://h.example.com/?a=2&a=10&a=1", "a=1&a=10&a=2"),
        ("https://h.example.com/?q=%E2%82%AC&%C3%BC=x&Z=1", "%C3%BC=x&Z=1&q=%E2%82%AC"),
        ("https://h.example.com/?a=1&&b=2", "=&a=1&b=2"),
        ("https://h.example.com/?x=a=b", "x=a%3Db"),
        // Canonicalized even when botocore would keep the URL's spelling.
        ("https://h.example.com/?%e2%82%ac=%7e&sp=a+b&s=!*", "%E2%82%AC=~&s=%21%2A&sp=a%2Bb"),
        ("https://h.example.com/?bad=%zz%4", "bad=%25zz%254"),
    ]
)
func queriesAreSortedAndEncoded(url: String, canonicalQuery: String) throws {
    #expect(try canonicalRequestLines(url)[2] == canonicalQuery[...])
}

@Test func headersAreLowercasedTrimmedJoinedAndFiltered() throws {
    let lines = try canonicalRequestLines(
        "https://h.example.com/",
        headers: [
            "X-Tag": "  a   b ",
            "User-Agent": "agent",
            "x-tag": "c\r\n  d\t",
            "Expect": "100-continue",
            "X-Amzn-Trace-Id": "Root=1",
            "Connection": "keep-alive",
            "X-Empty": "",
            "Host": " Example.com:8080 ",
            "X-TAG": "e\u{00A0}\u{3000}f",
        ]
    )
    #expect(
        lines[3...]
            == [
                "host:Example.com:8080",
                "x-amz-date:20240102T030405Z",
                "x-empty:",
                "x-tag:a b,c d,e f",
                "",
                "host;x-amz-date;x-empty;x-tag",
                "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
            ]
    )
}

/// Long values are scanned eight bytes at a time for whitespace: runs of every length, with
/// whitespace, control characters that are not whitespace, and non-ASCII letters at every
/// offset, trim as Python's `str.split()` and a join with one space do.
@Test func longHeaderValuesTrimAsPythonSplits() throws {
    // Whitespace for `str.split()`: 0x09-0x0D and 0x1C-0x20; 0x01 and 0x1B are kept.
    let alphabet: [Character] = [
        "a", "Z", "7", "-", " ", "\t", "\u{0B}", "\u{1C}", "\u{1F}", "\u{01}", "\u{1B}", "é", "~",
    ]
    let whitespace: Set<Character> = [" ", "\t", "\u{0B}", "\u{1C}", "\u{1F}"]
    var state: UInt64 = 0x9E37_79B9_7F4A_7C15
    func next(_ bound: Int) -> Int {
        state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
        return Int((state >> 33) % UInt64(bound))
    }
    for length in 0..<48 {
        for _ in 0..<20 {
            // Mostly letters, so that long runs without whitespace occur.
            let value = String((0..<length).map { _ in next(3) == 0 ? alphabet[next(alphabet.count)] : "x" })
            let expected = value.split(whereSeparator: { whitespace.contains($0) }).joined(separator: " ")
            let lines = try canonicalRequestLines("https://h.example.com/", headers: ["X-Value": value])
            #expect(lines[5] == "x-value:\(expected)"[...], "value \(value.debugDescription)")
        }
    }
}

@Test(
    arguments: [
        ("https://API.Example.com:443/", "host:api.example.com"),
        ("http://h.example.com:80/", "host:h.example.com"),
        ("http://h.example.com:443/", "host:h.example.com:443"),
        ("http://127.0.0.1:20002/graphql", "host:127.0.0.1:20002"),
        ("https://[::1]:9443/", "host:[::1]:9443"),
        ("https://[::1]/", "host:[::1]"),
        ("https://user:password@h.example.com/", "host:h.example.com"),
    ]
)
func theHostComesFromTheURLWhenNoHeaderGivesIt(url: String, hostLine: String) throws {
    #expect(try canonicalRequestLines(url)[3] == hostLine[...])
}

@Test func methodsAreSignedInUpperCaseAndBodiesByTheirHash() throws {
    let lines = try canonicalRequestLines("https://h.example.com/", method: "post", body: Data("hello".utf8))
    #expect(lines.first == "POST")
    #expect(lines.last == "2cf24dba5fb0a30e26e83b2ac5b9e29e1b161e5c1fa7425e73043362938b9824")
}

@Test func aStatedPayloadHashIsSignedAsItIs() throws {
    let lines = try canonicalRequestLines(
        "https://h.example.com/",
        headers: ["X-Amz-Content-SHA256": "UNSIGNED-PAYLOAD"],
        body: Data("hello".utf8)
    )
    #expect(lines.last == "UNSIGNED-PAYLOAD")
    #expect(lines[lines.count - 2] == "host;x-amz-content-sha256;x-amz-date")
}

// MARK: - URLRequest

@Test func foundationRequestsAreSignedLikeSigV4Requests() throws {
    var request = URLRequest(url: appSyncURL)
    request.httpMethod = "POST"
    request.httpBody = Data(#"{"query":"{ hello }"}"#.utf8)
    request.setValue("application/json", forHTTPHeaderField: "content-type")
    request.setValue("stale", forHTTPHeaderField: "Authorization")
    var credentials = example
    credentials.sessionToken = "token"
    let signer = SigV4Signer(service: "appsync", region: "us-east-1")

    let signed = signer.sign(request, credentials: credentials, date: signingDate)
    let expected = signer.sign(
        SigV4Request(
            method: "POST",
            url: appSyncURL,
            headers: ["content-type": "application/json"],
            body: request.httpBody!
        ),
        credentials: credentials,
        date: signingDate
    )
    #expect(signed.value(forHTTPHeaderField: "Authorization") == expected.headers["Authorization"])
    #expect(signed.value(forHTTPHeaderField: "X-Amz-Date") == "20240102T030405Z")
    #expect(signed.value(forHTTPHeaderField: "X-Amz-Security-Token") == "token")
    #expect(signed.value(forHTTPHeaderField: "Content-Type") == "application/json")
    #expect(signed.httpBody == request.httpBody)
    #expect(signed.url == appSyncURL)
}

@Test func foundationRequestsWithoutAMethodAreSignedAsGET() throws {
    let signer = SigV4Signer(service: "execute-api", region: "eu-west-1")
    let url = URL(string: "https://a1b2c3.execute-api.eu-west-1.amazonaws.com/prod/items?limit=10")!
    let signed = signer.sign(URLRequest(url: url), credentials: example, date: signingDate)
    let expected = signer.sign(SigV4Request(method: "GET", url: url), credentials: example, date: signingDate)
    #expect(signed.value(forHTTPHeaderField: "Authorization") == expected.headers["Authorization"])
}

// MARK: - Headers

@Test func headerLookupsIgnoreCaseAndKeepOrder() {
    var headers: SigV4Request.Headers = ["Accept": "a", "X-Tag": "1", "x-tag": "2"]
    #expect(headers["x-TAG"] == "1")
    #expect(headers.values(for: "X-TAG") == ["1", "2"])
    #expect(headers.contains(name: "ACCEPT"))
    headers.add(name: "X-Tag", value: "3")
    #expect(headers.values(for: "x-tag") == ["1", "2", "3"])
    headers["X-TAG"] = "only"
    #expect(headers.map(\.name) == ["Accept", "X-TAG"])
    headers["accept"] = nil
    #expect(headers == ["X-TAG": "only"])
    #expect(headers["accept"] == nil)
}
