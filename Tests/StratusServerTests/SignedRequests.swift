import AWSWire
import Foundation

/// Test requests signed with SigV4 as AppSync clients sign them: a `POST` of a body, service
/// `appsync`, region `us-east-1`.
enum SignedRequests {
    /// ``HTTPEndpointTests/accessKey``, the IAM key the test endpoints accept, as a client holds it.
    static let testKey = AWSCredentials(
        accessKeyId: HTTPEndpointTests.accessKey.accessKeyId,
        secretAccessKey: HTTPEndpointTests.accessKey.secretAccessKey,
        sessionToken: HTTPEndpointTests.accessKey.sessionToken
    )

    /// A `POST` of `body` to `url` with `headers`, signed with `credentials` at `date`.
    static func post(
        _ body: String,
        to url: URL,
        headers: SigV4Request.Headers = ["content-type": "application/json"],
        credentials: AWSCredentials = testKey,
        date: Date = Date()
    ) -> SigV4Request {
        SigV4Signer(service: "appsync", region: "us-east-1").sign(
            SigV4Request(method: "POST", url: url, headers: headers, body: Data(body.utf8)),
            credentials: credentials,
            date: date
        )
    }

    /// The header fields of ``post(_:to:headers:credentials:date:)`` as a client hands them to
    /// `URLSession`: all but `host`, which it sets itself.
    static func httpHeaders(
        _ body: String,
        to url: URL,
        headers: SigV4Request.Headers = ["content-type": "application/json"],
        credentials: AWSCredentials = testKey
    ) -> [String: String] {
        var fields: [String: String] = [:]
        for field in post(body, to: url, headers: headers, credentials: credentials).headers
        where field.name.lowercased() != "host" {
            fields[field.name] = field.value
        }
        return fields
    }
}
