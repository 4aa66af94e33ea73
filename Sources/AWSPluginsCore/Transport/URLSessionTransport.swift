import Amplify
import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Sends requests with `URLSession` data tasks, on Linux and on Apple platforms.
///
/// By default each transport has an ephemeral session of its own: no cookies, no cache, and
/// connections kept alive between requests.
public struct URLSessionTransport: HTTPTransport {
    /// The session that sends the requests.
    public let session: URLSession

    /// A transport over `session`.
    public init(session: URLSession) {
        self.session = session
    }

    /// A transport over a new ephemeral session.
    public init() {
        self.init(session: URLSession(configuration: .ephemeral))
    }

    /// Sends `request` with a data task; cancelling the calling task cancels it.
    ///
    /// - Throws: The session's `URLError` when no response arrives (`.cancelled` once cancelled).
    public func send(_ request: URLRequest) async throws -> APIResponse {
        let (data, response) = try await Self.data(for: request, in: session)
        guard let http = response as? HTTPURLResponse else {
            throw URLError(.badServerResponse)
        }
        var headers: [String: String] = [:]
        for (name, value) in http.allHeaderFields {
            if let name = name as? String, let value = value as? String { headers[name] = value }
        }
        return APIResponse(statusCode: http.statusCode, headers: headers, body: data)
    }

    /// A data task's answer, or `URLError(.cancelled)` as soon as the calling task is cancelled.
    ///
    /// Not `URLSession.data(for:)`: on Linux, cancelling its data task while the answer arrives
    /// either stops both for good (the cancellation holds the calling task's lock while waiting
    /// for the session's queue, which waits for that lock to deliver the answer) or traps in
    /// FoundationNetworking ("Trying to access a behaviour for a task that in not in the
    /// registry"). There a cancelled send ends at once and its data task runs to its end,
    /// unheard; on Apple platforms the data task is cancelled too.
    private static func data(for request: URLRequest, in session: URLSession) async throws -> (Data, URLResponse) {
        let call = DataTaskCall()
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                let task = session.dataTask(with: request) { data, response, error in
                    if let data, let response {
                        call.finish(with: .success((data, response)))
                    } else {
                        call.finish(with: .failure(error ?? URLError(.badServerResponse)))
                    }
                }
                call.start(task, continuation)
            }
        } onCancel: {
            call.finish(with: .failure(URLError(.cancelled)))
        }
    }
}

/// One data task and its caller, resumed once: by the answer or by cancellation, whichever is
/// first.
private final class DataTaskCall: @unchecked Sendable {
    private let lock = NSLock()
    private var continuation: CheckedContinuation<(Data, URLResponse), any Error>?
    private var task: URLSessionDataTask?
    private var early: Result<(Data, URLResponse), any Error>?

    func start(_ task: URLSessionDataTask, _ continuation: CheckedContinuation<(Data, URLResponse), any Error>) {
        let early = lock.withLock {
            self.task = task
            if self.early == nil { self.continuation = continuation }
            return self.early
        }
        if let early {
            // Cancelled before it started: nothing is sent.
            continuation.resume(with: early)
        } else {
            task.resume()
        }
    }

    func finish(with result: Result<(Data, URLResponse), any Error>) {
        let (continuation, task) = lock.withLock {
            defer { self.continuation = nil }
            if self.continuation == nil, early == nil { early = result }
            return (self.continuation, self.task)
        }
        guard let continuation else { return }
        continuation.resume(with: result)
        #if !os(Linux)
            if case .failure(let error) = result, (error as? URLError)?.code == .cancelled { task?.cancel() }
        #else
            _ = task
        #endif
    }
}
