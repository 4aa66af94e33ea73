/// A method of a REST API, as API Gateway names them: an HTTP method, or `ANY` for a route that
/// serves them all.
///
/// The clients send a request with one of the HTTP methods; ``any`` names a route's methods,
/// never a request's.
///
/// ```swift
/// RESTMethod(named: "get")     // .get
/// RESTMethod.patch.rawValue    // "PATCH"
/// ```
public enum RESTMethod: String, Sendable, Hashable, CaseIterable {
    /// Every method: what a route that serves them all declares.
    case any = "ANY"
    case get = "GET"
    case post = "POST"
    case put = "PUT"
    case delete = "DELETE"
    case patch = "PATCH"
    case head = "HEAD"
    case options = "OPTIONS"

    /// The method named `name`, in any case (`get`, `GET`), or `nil` for another name.
    public init?(named name: String) {
        self.init(rawValue: name.uppercased())
    }
}
