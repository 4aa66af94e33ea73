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
        let headers = SigV4Request.Headers(
            original.keys.sorted().map { SigV4Request.Headers.Field(name: $0, value: original[$0]!) }
        )
        let signed = sign(
            SigV4Request(
                method: request.httpMethod ?? "GET",
                url: url,
                headers: headers,
                body: request.httpBody ?? Data()
            ),
            credentials: credentials,
            date: date
        )
        var result = request
        for name in original.keys where !signed.headers.contains(name: name) {
            result.setValue(nil, forHTTPHeaderField: name)
        }
        for field in signed.headers {
            result.setValue(field.value, forHTTPHeaderField: field.name)
        }
        return result
    }
}
