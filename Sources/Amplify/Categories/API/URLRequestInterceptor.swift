import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Changes a request before it is sent, for example to add a header.
///
/// Interceptors are added per API with `AWSAPIPlugin.add(interceptor:for:)` and run in the order
/// they were added, after the authorization headers and the request's own headers and before
/// AWS_IAM signing, so that a header an interceptor adds is signed too. They run again for each
/// retry of a request.
///
/// ```swift
/// struct CustomInterceptor: URLRequestInterceptor {
///     func intercept(_ request: URLRequest) throws -> URLRequest {
///         var request = request
///         request.setValue("headerValue", forHTTPHeaderField: "headerKey")
///         return request
///     }
/// }
/// try apiPlugin.add(interceptor: CustomInterceptor(), for: "yourApiName")
/// ```
///
/// A synchronous `intercept(_:)`, as above, satisfies the requirement too.
public protocol URLRequestInterceptor: Sendable {
    /// Returns the request to send instead of `request`.
    ///
    /// - Throws: Any error, which fails the request: an ``APIError`` as it is, any other error
    ///   as ``APIError/operationError(_:_:)`` quoting it.
    func intercept(_ request: URLRequest) async throws -> URLRequest
}
