#if STRATUS_BENCH_DATASTORE
    import AWSPluginsCore
    import Amplify
    import Foundation
    import Synchronization

    /// A subscriber of the harness's own on one server endpoint (each instance of the PostgreSQL
    /// cluster, or the SQLite server), beside the devices and their faults: an
    /// `AppSyncRealTimeClient` subscribed to every model's `onCreate`, `onUpdate` and `onDelete`,
    /// whose deliveries ``ChaosOrder`` checks as it checks the devices'. It reconnects by itself
    /// when its server restarts.
    final class ChaosObserver: Sendable {
        /// The observer's name in the check's lines.
        let name: String
        private let lines = Mutex<[OperationLogEntry]>([])
        private let failures = Mutex<[String]>([])
        private let listeners = Mutex<[Task<Void, Never>]>([])

        private init(name: String) {
            self.name = name
        }

        /// An API key on the real-time connection.
        private struct Authorizer: AppSyncRealTimeAuthorizer {
            let apiKey: String

            func connectionAuthorization(graphQLURL: URL) async throws -> [String: String] {
                ["host": "\(graphQLURL.host ?? ""):\(graphQLURL.port ?? 80)", "x-api-key": apiKey]
            }

            func startAuthorization(graphQLURL: URL, data: String) async throws -> [String: String] {
                try await connectionAuthorization(graphQLURL: graphQLURL)
            }
        }

        /// Subscribes `name` to every change of the chaos schema's models at `endpoint`.
        static func start(name: String, endpoint: URL, apiKey: String, listener: Int) async -> ChaosObserver {
            let observer = ChaosObserver(name: name)
            var configuration = AppSyncRealTimeConfiguration()
            configuration.initialDelay = .milliseconds(100)
            configuration.maximumDelay = .milliseconds(500)
            let client = AppSyncRealTimeClient(
                graphQLURL: endpoint,
                authorizer: Authorizer(apiKey: apiKey),
                configuration: configuration
            )
            var number = 0
            for model in ["Folder", "Note"] {
                for type in ["onCreate", "onUpdate", "onDelete"] {
                    number += 1
                    let field = type + model
                    let subscription = HeardSubscription(
                        field: field,
                        number: number,
                        device: listener,
                        incarnation: 0
                    ) { entry in observer.lines.withLock { $0.append(entry) } }
                    let events = await client.subscribe(
                        data: #"{"query":"subscription { \#(field) { id _version } }"}"#
                    )
                    let task = Task {
                        do {
                            for try await event in events {
                                switch event {
                                case .connection(.connected): subscription.connected()
                                case .data(let value):
                                    let item = value["data"]?[field]
                                    subscription.heard(
                                        id: item?["id"]?.stringValue,
                                        version: item?["_version"]?.intValue
                                    )
                                default: break
                                }
                            }
                        } catch {
                            observer.failures.withLock { $0.append("\(name)'s \(field) failed: \(error)") }
                        }
                    }
                    observer.listeners.withLock { $0.append(task) }
                }
            }
            return observer
        }

        /// What its subscriptions delivered, in the order heard.
        var heard: [OperationLogEntry] { lines.withLock { $0 } }

        /// Its subscriptions that ended with an error: the order check did not see their server.
        var failed: [String] { failures.withLock { $0 } }

        func stop() {
            for task in listeners.withLock({ $0 }) { task.cancel() }
        }
    }
#endif
