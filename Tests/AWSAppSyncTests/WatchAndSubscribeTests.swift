import AWSPluginsCore
import Amplify
import Foundation
import StratusServer
import StratusTesting
import Testing
import TodoAPI

@testable import AWSAppSync

/// Watchers and subscriptions of the AppSync client against the local backend.
@Suite struct WatchAndSubscribeTests {
    @Test(.timeLimit(.minutes(1))) func aWatcherRedeliversForChangesToWhatItReadOnly() async throws {
        try await AppSyncClientTests.withClient { backend, appSyncClient in
            _ = try await backend.perform(CreateTodoMutation(input: CreateTodoInput(id: "t1", name: "Milk")))
            let calls = HandlerCalls<GraphQLResult<GetTodoQuery.Data>>()
            var iterator = calls.stream.makeAsyncIterator()
            let watcher = appSyncClient.watch(
                query: GetTodoQuery(id: "t1"),
                queue: calls.queue,
                resultHandler: calls.handler
            )
            let initial = try await calls.next(&iterator)
            #expect(initial.0?.data?.getTodo?.name == "Milk")

            // An unrelated write, then a related one: the next delivery is the related one.
            _ = try await appSyncClient.perform(
                mutation: CreateTodoMutation(input: CreateTodoInput(id: "t2", name: "Eggs"))
            )
            _ = try await appSyncClient.perform(
                mutation: UpdateTodoMutation(input: UpdateTodoInput(id: "t1", name: "Oat milk"))
            )
            let changed = try await calls.next(&iterator)
            #expect(changed.0?.source == .cache)
            #expect(changed.0?.data?.getTodo?.name == "Oat milk")

            // A transaction that changes the record is seen too.
            let written = appSyncClient.store!.withinReadWriteTransaction { transaction in
                try transaction.update(query: GetTodoQuery(id: "t1")) { (data: inout GetTodoQuery.Data) in
                    data.getTodo?.name = "Soy milk"
                }
            }
            try written.get()
            let updated = try await calls.next(&iterator)
            #expect(updated.0?.data?.getTodo?.name == "Soy milk")
            watcher.cancel()
        }
    }

    @Test(.timeLimit(.minutes(1))) func aWatcherDeliversOnceForEachChangeAndNotForANoOpWrite() async throws {
        try await AppSyncClientTests.withClient { backend, appSyncClient in
            _ = try await backend.perform(CreateTodoMutation(input: CreateTodoInput(id: "t1", name: "Milk")))
            let calls = HandlerCalls<GraphQLResult<GetTodoQuery.Data>>()
            var iterator = calls.stream.makeAsyncIterator()
            let watcher = appSyncClient.watch(
                query: GetTodoQuery(id: "t1"),
                queue: calls.queue,
                resultHandler: calls.handler
            )
            #expect(try await calls.next(&iterator).0?.data?.getTodo?.name == "Milk")
            // The fourth write leaves every field the watcher read as it was.
            for name in ["Oat milk", "Soy milk", "Rice milk", "Rice milk", "Almond milk"] {
                _ = try await appSyncClient.perform(
                    mutation: UpdateTodoMutation(input: UpdateTodoInput(id: "t1", name: name))
                )
            }
            var delivered: [String?] = []
            for _ in 0..<4 {
                delivered.append(try await calls.next(&iterator).0?.data?.getTodo?.name)
            }
            watcher.cancel()
            #expect(delivered == ["Oat milk", "Soy milk", "Rice milk", "Almond milk"])
        }
    }

    @Test(.timeLimit(.minutes(1))) func theGuidesSubscriptionDeliversWithATransaction() async throws {
        try await AppSyncClientTests.withClient { _, appSyncClient in
            let events = HandlerCalls<String>()
            var eventIterator = events.stream.makeAsyncIterator()
            var subscriptionWatcher: Cancellable?
            subscriptionWatcher = try appSyncClient.subscribe(
                subscription: OnCreateTodoSubscription(),
                queue: events.queue,
                statusChangeHandler: { status in
                    events.handler("status \(status)", nil)
                }
            ) { result, transaction, error in
                if let onCreateTodo = result?.data?.onCreateTodo {
                    events.handlerOnAnyQueue(
                        onCreateTodo.name + " " + onCreateTodo.description! + " \(transaction != nil)",
                        nil
                    )
                } else if let error {
                    events.handlerOnAnyQueue(nil, error)
                }
            }
            var statuses: [String] = []
            while statuses.last != "status connected" {
                statuses.append(try #require(try await events.next(&eventIterator).0))
            }
            #expect(statuses == ["status connecting", "status connected"])

            let mutationInput = CreateTodoInput(id: "s1", name: "Use AppSync", description: "Realtime and Offline")
            _ = try await appSyncClient.perform(mutation: CreateTodoMutation(input: mutationInput))
            let event = try await events.next(&eventIterator)
            #expect(event.0 == "Use AppSync Realtime and Offline true")
            subscriptionWatcher?.cancel()
        }
    }

    @Test(.timeLimit(.minutes(1))) func theSubscriptionSequenceDeliversEvents() async throws {
        try await AppSyncClientTests.withClient { backend, appSyncClient in
            var events = appSyncClient.subscribe(subscription: OnCreateTodoSubscription()).makeAsyncIterator()
            var states: [SubscriptionConnectionState] = []
            while let event = try await events.next() {
                guard case .connection(let state) = event else { continue }
                states.append(state)
                if state == .connected { break }
            }
            #expect(states == [.connecting, .connected])
            _ = try await backend.perform(CreateTodoMutation(input: CreateTodoInput(id: "q1", name: "Milk")))
            guard case .data(let result) = try await events.next() else {
                Issue.record("Expected the created todo")
                return
            }
            #expect(result.data?.onCreateTodo?.name == "Milk")
            // The event's object is in the cache, under its key; SUBSCRIPTION_ROOT is not kept.
            let (todo, root) = try appSyncClient.store!.withinReadTransaction { transaction in
                (try transaction.record("q1"), try transaction.record("SUBSCRIPTION_ROOT"))
            }.get()
            #expect(todo?["name"] == "Milk")
            #expect(root == nil)
        }
    }
}

/// The AWS_LAMBDA mode end to end: a token from an asynchronous provider over HTTP and the
/// real-time endpoint, and a refused token.
@Suite struct LambdaAuthTests {
    final class TokenProvider: AWSLambdaAuthProviderAsync {
        let token: String
        init(token: String) { self.token = token }
        func getLatestAuthToken(_ callback: @escaping (String?, Error?) -> Void) {
            callback(token, nil)
        }
    }

    static func makeClient(_ backend: LocalBackend, token: String) throws -> AWSAppSyncClient {
        let serviceConfig = AWSAppSyncServiceConfig(
            endpoint: backend.endpoint,
            region: "us-east-1",
            authType: .function
        )
        return try AWSAppSyncClient(
            appSyncConfig: AWSAppSyncClientConfiguration(
                appSyncServiceConfig: serviceConfig,
                awsLambdaAuthProvider: TokenProvider(token: token)
            )
        )
    }

    @Test(.timeLimit(.minutes(1))) func aLambdaTokenAuthorizesQueriesAndSubscriptions() async throws {
        let backend = try await LocalBackend.start(
            schema: TodoSeedTests.schema,
            defaultMode: .function,
            additionalModes: [],
            lambdaAuthorizer: { token in LambdaAuthorization(isAuthorized: token == "let-me-in") }
        )
        do {
            let appSyncClient = try Self.makeClient(backend, token: "let-me-in")
            var events = appSyncClient.subscribe(subscription: OnCreateTodoSubscription()).makeAsyncIterator()
            while let event = try await events.next() {
                if case .connection(.connected) = event { break }
            }
            let created = try await appSyncClient.perform(
                mutation: CreateTodoMutation(input: CreateTodoInput(id: "l1", name: "Milk"))
            )
            #expect(created.errors == nil)
            guard case .data(let result) = try await events.next() else {
                Issue.record("Expected the created todo")
                return
            }
            #expect(result.data?.onCreateTodo?.id == "l1")

            let refusedClient = try Self.makeClient(backend, token: "wrong")
            let error = await #expect(throws: AWSAppSyncClientError.self) {
                try await refusedClient.fetch(query: ListTodosQuery())
            }
            #expect(error?.code == .requestFailed)
            #expect(error?.statusCode == 401)
            #expect(
                error?.message
                    == "\(backend.endpoint.absoluteString) refused ListTodos with HTTP 401: UnauthorizedException: "
                    + "You are not authorized to make this call. Check the AWS_LAMBDA key, token or credentials the client sends."
            )
        } catch {
            await backend.stop()
            throw error
        }
        await backend.stop()
    }
}

/// A token provider that cannot reach its service holds a mutation in the queue until it can;
/// one that refuses (nobody signed in) fails the mutation at once, as the AWS Mobile SDK does.
@Suite struct TokenProviderFailureTests {
    /// Fails the first `failures` calls with `error`, then gives `let-me-in`.
    final class FlakyProvider: AWSLambdaAuthProviderAsync, @unchecked Sendable {
        private let lock = NSLock()
        private var failures: Int
        private let error: any Error
        private(set) var calls = 0

        init(failures: Int, error: any Error) {
            self.failures = failures
            self.error = error
        }

        func getLatestAuthToken(_ callback: @escaping (String?, Error?) -> Void) {
            let fail: Bool = lock.withLock {
                calls += 1
                guard failures > 0 else { return false }
                failures -= 1
                return true
            }
            if fail { callback(nil, error) } else { callback("let-me-in", nil) }
        }
    }

    struct NobodySignedIn: Error, CustomStringConvertible {
        var description: String { "Nobody is signed in" }
    }

    static func makeClient(_ backend: LocalBackend, _ provider: FlakyProvider) throws -> AWSAppSyncClient {
        try AWSAppSyncClient(
            appSyncConfig: AWSAppSyncClientConfiguration(
                appSyncServiceConfig: AWSAppSyncServiceConfig(
                    endpoint: backend.endpoint,
                    region: "us-east-1",
                    authType: .function
                ),
                awsLambdaAuthProvider: provider
            )
        )
    }

    @Test(.timeLimit(.minutes(1))) func anUnreachableProviderIsRetriedAndARefusalFailsAtOnce() async throws {
        let backend = try await LocalBackend.start(
            schema: TodoSeedTests.schema,
            defaultMode: .function,
            additionalModes: [],
            lambdaAuthorizer: { token in LambdaAuthorization(isAuthorized: token == "let-me-in") }
        )
        do {
            // A token refresh while offline: the mutation waits in the queue and then arrives once.
            let offline = FlakyProvider(
                failures: 2,
                error: AuthError.service("Cannot reach Cognito", "", URLError(.notConnectedToInternet))
            )
            let client = try Self.makeClient(backend, offline)
            let created = try await client.perform(
                mutation: CreateTodoMutation(input: CreateTodoInput(id: "t1", name: "Milk"))
            )
            #expect(created.data?.createTodo?.id == "t1")
            #expect(offline.calls == 3)
            #expect(try client.queuedMutationIdentifiers().isEmpty)

            // Nobody signed in: the caller gets the provider's error and nothing stays queued.
            let refusing = FlakyProvider(failures: .max, error: NobodySignedIn())
            let refused = try Self.makeClient(backend, refusing)
            let error = await #expect(throws: AWSAppSyncClientError.self) {
                try await refused.perform(mutation: CreateTodoMutation(input: CreateTodoInput(id: "t2", name: "Eggs")))
            }
            #expect(error?.code == .authentication)
            #expect(
                error?.message
                    == "The auth provider of AWS_LAMBDA failed to return a token: Nobody is signed in. "
                    + "Check that the user is signed in."
            )
            #expect(refusing.calls == 1)
            #expect(try refused.queuedMutationIdentifiers().isEmpty)
            let stored = try await client.fetch(query: ListTodosQuery(), cachePolicy: .fetchIgnoringCacheData)
            #expect(stored.data?.listTodos?.items?.compactMap { $0?.id } == ["t1"])
        } catch {
            await backend.stop()
            throw error
        }
        await backend.stop()
    }
}

/// The AWS_IAM mode end to end: SigV4 over HTTP and in the real-time authorization objects.
@Suite struct IAMAuthTests {
    @Test(.timeLimit(.minutes(1))) func signedRequestsAndSubscriptionsAreAccepted() async throws {
        let backend = try await LocalBackend.start(
            schema: TodoSeedTests.schema,
            defaultMode: .awsIAM,
            additionalModes: []
        )
        do {
            let serviceConfig = AWSAppSyncServiceConfig(
                endpoint: backend.endpoint,
                region: "us-east-1",
                authType: .awsIAM
            )
            let appSyncClient = try AWSAppSyncClient(
                appSyncConfig: AWSAppSyncClientConfiguration(
                    appSyncServiceConfig: serviceConfig,
                    credentialsProvider: StaticCredentialsProvider(backend.credentials)
                )
            )
            var events = appSyncClient.subscribe(subscription: OnCreateTodoSubscription()).makeAsyncIterator()
            while let event = try await events.next() {
                if case .connection(.connected) = event { break }
            }
            let created = try await appSyncClient.perform(
                mutation: CreateTodoMutation(input: CreateTodoInput(id: "i1", name: "Milk"))
            )
            #expect(created.errors == nil)
            guard case .data(let result) = try await events.next() else {
                Issue.record("Expected the created todo")
                return
            }
            #expect(result.data?.onCreateTodo?.id == "i1")

            let unsigned = try AWSAppSyncClient(
                appSyncConfig: AWSAppSyncClientConfiguration(
                    appSyncServiceConfig: serviceConfig,
                    credentialsProvider: StaticCredentialsProvider(accessKeyId: "AKIDOTHER", secretAccessKey: "nope")
                )
            )
            let error = await #expect(throws: AWSAppSyncClientError.self) {
                try await unsigned.fetch(query: ListTodosQuery())
            }
            #expect(error?.statusCode == 403)
            #expect(error?.message.hasSuffix("Check the AWS_IAM key, token or credentials the client sends.") == true)
        } catch {
            await backend.stop()
            throw error
        }
        await backend.stop()
    }
}
