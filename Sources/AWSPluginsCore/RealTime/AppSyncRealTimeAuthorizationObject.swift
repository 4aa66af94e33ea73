import AWSWire
import Amplify
import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// AppSync's real-time authorization object: the headers an HTTP request to the same API
/// carries in the same mode, with `host`, under the names the real-time protocol uses.
package enum AppSyncRealTimeAuthorizationObject {
    /// The object for a `POST` of `body` to `url` (the API's URL for a `start`, its `/connect`
    /// for a connection), whose headers `authorize` adds: the key or token, or for `AWS_IAM`
    /// the SigV4 signature over the headers AppSync expects signed.
    package static func make(
        url: URL,
        body: String,
        mode: AWSAuthorizationType,
        now: Date,
        authorize: (URLRequest) async throws -> URLRequest
    ) async throws -> [String: String] {
        var request = URLRequest(url: url)
        request.httpMethod = "POST"
        request.httpBody = Data(body.utf8)
        if mode == .awsIAM {
            request.setValue("application/json, text/javascript", forHTTPHeaderField: "accept")
            request.setValue("amz-1.0", forHTTPHeaderField: "content-encoding")
            request.setValue("application/json; charset=UTF-8", forHTTPHeaderField: "content-type")
        }
        // The host SigV4 signs, so that the object's `host` and its signature agree.
        var object = ["host": SigV4Request.hostHeaderValue(for: url)]
        for (name, value) in try await authorize(request).allHTTPHeaderFields ?? [:] {
            switch name.lowercased() {
            case "authorization": object["Authorization"] = value
            case "x-amz-security-token": object["X-Amz-Security-Token"] = value
            default: object[name.lowercased()] = value
            }
        }
        if mode == .apiKey { object["x-amz-date"] = SigV4Signer.amzDate(now) }
        return object
    }
}
