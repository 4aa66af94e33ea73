import AWSPluginsCore
import Amplify
import Foundation
import StratusServer
import StratusTesting
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The AsyncHTTPClient transport against the local backend: the same answer as URLSession's,
/// and network failures as the `URLError`s URLSession throws.
@Suite struct AsyncHTTPClientTransportTests {
    static func request(_ url: URL, apiKey: String, timeout: TimeInterval = 60) -> URLRequest {
        var request = URLRequest(url: url, timeoutInterval: timeout)
        request.httpMethod = "POST"
        request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        request.setValue(apiKey, forHTTPHeaderField: "x-api-key")
        request.httpBody = Data(#"{"query":"query { listNotes { items { id } } }"}"#.utf8)
        return request
    }

    @Test func itAnswersAsURLSessionDoes() async throws {
        let backend = try await LocalBackend.start(schema: "type Note @model { id: ID! }")
        do {
            let request = Self.request(backend.endpoint, apiKey: backend.apiKey)
            let fast = try await AsyncHTTPClientTransport().send(request)
            let reference = try await URLSessionTransport().send(request)
            #expect(fast.statusCode == 200)
            #expect(String(decoding: fast.body, as: UTF8.self) == #"{"data":{"listNotes":{"items":[]}}}"#)
            #expect(fast.body == reference.body)
            #expect(fast.headers["content-type"] == "application/json")

            var refused = request
            refused.setValue("da2-wrong", forHTTPHeaderField: "x-api-key")
            let answer = try await AsyncHTTPClientTransport().send(refused)
            #expect(answer.statusCode == 401)
        } catch {
            await backend.stop()
            throw error
        }
        await backend.stop()
    }

    @Test func networkFailuresAreURLErrors() async throws {
        let backend = try await LocalBackend.start(schema: "type Note @model { id: ID! }")
        let proxy = try await FaultProxy.start(forwardingTo: backend.endpoint)
        // Nothing listens on the backend's port once it stopped.
        let closed = Self.request(backend.endpoint, apiKey: backend.apiKey)
        proxy.blackHole()
        let silent = Self.request(proxy.url(proxying: backend.endpoint), apiKey: backend.apiKey, timeout: 0.5)
        let timeout = await #expect(throws: URLError.self) { try await AsyncHTTPClientTransport().send(silent) }
        #expect(timeout?.code == .timedOut)
        await backend.stop()
        let refused = await #expect(throws: URLError.self) { try await AsyncHTTPClientTransport().send(closed) }
        #expect(refused?.code == .cannotConnectToHost)
        #expect(refused?.localizedDescription.contains(backend.endpoint.absoluteString) == true)
        await proxy.stop()
    }
}
