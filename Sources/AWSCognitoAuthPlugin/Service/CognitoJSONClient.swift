import AWSPluginsCore
import Amplify
import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Calls one Cognito service over its JSON protocol: `POST /` with
/// `Content-Type: application/x-amz-json-1.1` and `X-Amz-Target: <service>.<Operation>`.
///
/// The operations the plugin uses need no signature: the user pool's take the app client id
/// (and tokens), the identity pool's take the pool id and logins.
struct CognitoJSONClient: Sendable {
    /// `AWSCognitoIdentityProviderService` or `AWSCognitoIdentityService`.
    let service: String
    let endpoint: URL
    let transport: any HTTPTransport

    /// Calls `operation` with `input` and returns the answer's JSON object.
    ///
    /// - Throws: ``AuthError`` wrapping ``AWSCognitoServiceError`` when the service refuses,
    ///   `service` when it cannot be reached (with the transport's error as the underlying error,
    ///   so that callers can tell a network failure from a refusal) or answers something that is
    ///   not JSON.
    func call(_ operation: String, _ input: [String: JSONValue]) async throws(AuthError) -> JSONValue {
        var request = URLRequest(url: endpoint)
        request.httpMethod = "POST"
        request.setValue("application/x-amz-json-1.1", forHTTPHeaderField: "Content-Type")
        request.setValue("\(service).\(operation)", forHTTPHeaderField: "X-Amz-Target")
        do {
            request.httpBody = try JSONEncoder().encode(JSONValue.object(input))
        } catch {
            throw .unknown("Cannot encode the \(operation) request: \(error)", nil)
        }
        let response: APIResponse
        do {
            response = try await transport.send(request)
        } catch {
            throw .service(
                "Cannot reach \(endpoint.absoluteString) for \(operation): \(error)",
                "Check the network and the Endpoint or Region in the configuration.",
                error
            )
        }
        let body = try? JSONValue(parsing: response.body)
        guard (200..<300).contains(response.statusCode) else {
            throw Self.serviceError(response, body: body).authError
        }
        guard let body, case .object = body else {
            throw .service(
                "\(operation) answered HTTP \(response.statusCode) with a body that is not a JSON object: "
                    + String(decoding: response.body.prefix(200), as: UTF8.self),
                "Check that \(endpoint.absoluteString) is a Cognito endpoint.",
                nil
            )
        }
        return body
    }

    /// The exception of an answer that is not 2xx: its name from `__type` (after any `#`) or
    /// the `x-amzn-errortype` header, its message from `message` or `Message`.
    static func serviceError(_ response: APIResponse, body: JSONValue?) -> AWSCognitoServiceError {
        let type =
            body?["__type"]?.stringValue
            ?? response.headers["x-amzn-errortype"]?.split(separator: ":").first.map(String.init)
            ?? "HTTP\(response.statusCode)"
        let name = type.split(separator: "#").last.map(String.init) ?? type
        let message =
            body?["message"]?.stringValue ?? body?["Message"]?.stringValue
            ?? String(decoding: response.body.prefix(200), as: UTF8.self)
        return AWSCognitoServiceError(exceptionName: name, message: message, statusCode: response.statusCode)
    }
}
