import AWSWire
import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

extension SigV4Signer {
    /// Returns a Foundation request with its signature headers.
    ///
    /// The body is `httpBody`; the method defaults to `GET` as it does for `URLSession`.
    /// `URLRequest` holds one value per header name, so each header is signed with that value.
    ///
    /// ```swift
    /// var request = URLRequest(url: graphQLURL)
    /// request.httpMethod = "POST"
    /// request.httpBody = body
    /// request = signer.sign(request, credentials: credentials)
    /// let (data, response) = try await URLSession.shared.data(for: request)
    /// ```
    ///
    /// - Precondition: The request has a URL and no `httpBodyStream`, whose bytes cannot be
    ///   hashed without consuming it.
    public func sign(_ request: URLRequest, credentials: AWSCredentials, date: Date = Date()) -> URLRequest {
        guard let url = request.url else {
            preconditionFailure("SigV4Signer cannot sign a URLRequest without a URL.")
        }
        precondition(
            request.httpBodyStream == nil,
            "SigV4Signer cannot sign a URLRequest with an httpBodyStream; set httpBody to the bytes to send."
        )
        let original = request.allHTTPHeaderFields ?? [:]
        let fields = original.keys.sorted().map { SigV4Request.Headers.Field(name: $0, value: original[$0]!) }
        let signature = signature(
            method: request.httpMethod ?? "GET",
            url: url,
            headers: fields,
            body: request.httpBody ?? Data(),
            credentials: credentials,
            date: date
        )
        // The headers are set as a whole: `setValue(_:forHTTPHeaderField:)` capitalizes the name
        // and checks the value character by character, which costs more than the signature.
        var signedFields = original
        for name in original.keys where signature.replaces(name) {
            signedFields[name] = nil
        }
        signedFields[signature.dateHeader.name] = signature.dateHeader.value
        signedFields["Authorization"] = signature.authorization
        var result = request
        if let token = signature.securityToken,
            SigV4Canonical.withUTF8(token, { $0.contains { $0 == 0 || $0 == 0x0A || $0 == 0x0D } })
        {
            // Left to URLRequest, which refuses a value that would break the header block.
            result.allHTTPHeaderFields = signedFields
            result.setValue(token, forHTTPHeaderField: "X-Amz-Security-Token")
        } else {
            signedFields["X-Amz-Security-Token"] = signature.securityToken
            result.allHTTPHeaderFields = signedFields
        }
        return result
    }
}
