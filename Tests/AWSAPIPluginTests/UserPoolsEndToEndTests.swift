import AWSAPIPlugin
import AWSPluginsCore
import Amplify
import Foundation
import StratusServer
import StratusTesting
import Testing

/// `AMAZON_COGNITO_USER_POOLS` end to end: tokens issued by a moto Cognito user pool, sent by the
/// plugin through `APIAuthProviderFactory`, verified by the local backend against moto's JWKS,
/// and owner rules deciding what each user sees.
@Suite struct UserPoolsEndToEndTests {
    static let schema = """
        type Todo @model @auth(rules: [{ allow: owner }, { allow: groups, groups: ["Admins"], operations: [read] }]) {
          id: ID!
          name: String!
        }
        """

    struct Token: AmplifyUserPoolsAuthProvider {
        let token: String
        func getLatestAuthToken() async throws -> String { token }
    }

    final class Factory: APIAuthProviderFactory, @unchecked Sendable {
        let token: String
        init(token: String) { self.token = token }
        override func userPoolsAuthProvider() -> AmplifyUserPoolsAuthProvider? { Token(token: token) }
    }

    static func request(_ document: String, _ variables: [String: JSONValue] = [:]) -> GraphQLRequest<JSONValue> {
        GraphQLRequest(document: document, variables: variables, responseType: JSONValue.self)
    }

    @Test func ownersSeeTheirOwnItemsAndAdminsSeeAll() async throws {
        let pool = try await MotoUserPool.shared()
        let backend = try await LocalBackend.start(
            schema: Self.schema,
            defaultMode: .amazonCognitoUserPools,
            additionalModes: [.apiKey],
            userPool: pool.authorization(clientRegex: pool.clientId)
        )
        do {
            let alice = try backend.makeAPIPlugin(
                authorizationType: .amazonCognitoUserPools,
                apiAuthProviderFactory: Factory(token: pool.aliceId)
            )
            let bob = try backend.makeAPIPlugin(
                authorizationType: .amazonCognitoUserPools,
                apiAuthProviderFactory: Factory(token: pool.bobId)
            )
            let create =
                "mutation Create($name: String!) { createTodo(input: {name: $name}) { id name owner _version } }"
            let aliceTodo = try await alice.mutate(request: Self.request(create, ["name": "alice's"])).get()
            let owner = try #require(aliceTodo.value(at: "createTodo.owner")?.stringValue)
            #expect(owner.hasSuffix("::alice"), "\(owner)")
            let bobTodo = try await bob.mutate(request: Self.request(create, ["name": "bob's"])).get()
            #expect(bobTodo.value(at: "createTodo.owner")?.stringValue?.hasSuffix("::bob") == true)

            let list = "{ listTodos { items { name } } }"
            let bobSees = try await bob.query(request: Self.request(list)).get()
            #expect(bobSees.value(at: "listTodos.items") == [["name": "bob's"]])
            let aliceSees = try await alice.query(request: Self.request(list)).get()
            #expect(
                aliceSees.value(at: "listTodos.items") == [["name": "alice's"], ["name": "bob's"]]
                    || aliceSees.value(at: "listTodos.items") == [["name": "bob's"], ["name": "alice's"]],
                "Alice is in Admins, which reads every item"
            )

            let id = try #require(aliceTodo.value(at: "createTodo.id")?.stringValue)
            let update = "mutation { updateTodo(input: {id: \"\(id)\", name: \"taken\", _version: 1}) { name } }"
            switch try await bob.mutate(request: Self.request(update)) {
            case .failure(.error(let errors)):
                #expect(errors.first?.errorType == "Unauthorized")
                #expect(errors.first?.message == "Not Authorized to access updateTodo on type Mutation")
            case let other:
                Issue.record("Bob updated Alice's item: \(other)")
            }

            let apiKey = try backend.makeAPIPlugin()
            switch try await apiKey.query(request: Self.request(list)) {
            case .failure(.error(let errors)):
                #expect(errors.first?.errorType == "Unauthorized", "no rule admits API keys")
            case let other:
                Issue.record("an API key read owner-only items: \(other)")
            }

            let foreign = try backend.makeAPIPlugin(
                authorizationType: .amazonCognitoUserPools,
                apiAuthProviderFactory: Factory(token: pool.foreignPoolId)
            )
            do {
                let accepted = try await foreign.query(request: Self.request(list))
                Issue.record("a token of another pool was accepted: \(accepted)")
            } catch APIError.httpStatusError(let status, let response) {
                #expect(status == 401)
                #expect(
                    String(decoding: response.body, as: UTF8.self)
                        == #"{"errors":[{"errorType":"UnauthorizedException","message":"You are not authorized to make this call."}]}"#
                )
            }
        } catch {
            await backend.stop()
            throw error
        }
        await backend.stop()
    }

    final class TokenFactory: APIAuthProviderFactory, @unchecked Sendable {
        struct OIDC: AmplifyOIDCAuthProvider {
            let token: String
            func getLatestAuthToken() async throws -> String { token }
        }
        struct Function: AmplifyFunctionAuthProvider {
            let token: String
            func getLatestAuthToken() async throws -> String { token }
        }
        let token: String
        init(token: String) { self.token = token }
        override func oidcAuthProvider() -> AmplifyOIDCAuthProvider? { OIDC(token: token) }
        override func functionAuthProvider() -> AmplifyFunctionAuthProvider? { Function(token: token) }
    }

    /// The pool's issuer as an OpenID Connect provider, and a Lambda authorizer, through the
    /// plugin's `oidcAuthProvider()` and `functionAuthProvider()`.
    @Test func openIDConnectAndLambdaModes() async throws {
        let pool = try await MotoUserPool.shared()
        let schema = """
            type Memo @model @auth(rules: [
              { allow: owner, provider: oidc, identityClaim: "sub" }
              { allow: custom }
            ]) {
              id: ID!
              text: String!
            }
            """
        let backend = try await LocalBackend.start(
            schema: schema,
            defaultMode: .openIDConnect,
            additionalModes: [.function],
            lambdaAuthorizer: { token in
                LambdaAuthorization(isAuthorized: token == "let-me-in", resolverContext: ["tenant": "t1"])
            },
            openIDConnect: OIDCAuthorization(
                issuer: pool.issuer,
                clientId: pool.clientId,
                jwks: .url(URL(string: pool.jwksURL)!)
            )
        )
        do {
            let oidc = try backend.makeAPIPlugin(
                authorizationType: .openIDConnect,
                apiAuthProviderFactory: TokenFactory(token: pool.aliceId)
            )
            let create = "mutation { createMemo(input: {text: \"mine\"}) { owner text } }"
            let created = try await oidc.mutate(request: Self.request(create)).get()
            #expect(created.value(at: "createMemo.owner")?.stringValue?.isEmpty == false)
            #expect(created.value(at: "createMemo.owner")?.stringValue?.contains("::") == false, "identityClaim sub")

            let lambda = try backend.makeAPIPlugin(
                authorizationType: .function,
                apiAuthProviderFactory: TokenFactory(token: "let-me-in")
            )
            let all = try await lambda.query(request: Self.request("{ listMemos { items { text } } }")).get()
            #expect(all.value(at: "listMemos.items") == [["text": "mine"]], "custom rules admit the Lambda caller")

            let refused = try backend.makeAPIPlugin(
                authorizationType: .function,
                apiAuthProviderFactory: TokenFactory(token: "wrong")
            )
            do {
                _ = try await refused.query(request: Self.request("{ listMemos { items { text } } }"))
                Issue.record("the authorizer's refusal was ignored")
            } catch APIError.httpStatusError(let status, _) {
                #expect(status == 401)
            }
        } catch {
            await backend.stop()
            throw error
        }
        await backend.stop()
    }

    /// Owner rules filter subscription events to the caller's items, and a subscription naming
    /// another owner is refused at start.
    @Test func subscriptionsHearOnlyTheCallersItems() async throws {
        let pool = try await MotoUserPool.shared()
        let backend = try await LocalBackend.start(
            schema: Self.schema,
            defaultMode: .amazonCognitoUserPools,
            userPool: pool.authorization()
        )
        do {
            let alice = try backend.makeAPIPlugin(
                authorizationType: .amazonCognitoUserPools,
                apiAuthProviderFactory: Factory(token: pool.aliceId)
            )
            let bob = try backend.makeAPIPlugin(
                authorizationType: .amazonCognitoUserPools,
                apiAuthProviderFactory: Factory(token: pool.bobId)
            )
            let document = "subscription { onCreateTodo { name owner } }"
            let bobHears = SubscriptionEndToEndTests.Recorder(bob.subscribe(request: Self.request(document)))
            let aliceHears = SubscriptionEndToEndTests.Recorder(alice.subscribe(request: Self.request(document)))
            try await bobHears.wait("bob connected") { $0.states.contains(.connected) }
            try await aliceHears.wait("alice connected") { $0.states.contains(.connected) }

            let create = "mutation Create($name: String!) { createTodo(input: {name: $name}) { id name owner } }"
            let created = try await alice.mutate(request: Self.request(create, ["name": "alice's"])).get()
            _ = try await bob.mutate(request: Self.request(create, ["name": "bob's"])).get()
            try await bobHears.wait("bob's own event") { $0.values.count >= 1 }
            try await aliceHears.wait("both events, as Alice is in Admins") { $0.values.count >= 2 }
            #expect(bobHears.values.compactMap { $0.value(at: "onCreateTodo.name")?.stringValue } == ["bob's"])
            #expect(
                Set(aliceHears.values.compactMap { $0.value(at: "onCreateTodo.name")?.stringValue })
                    == ["alice's", "bob's"]
            )

            let aliceOwner = try #require(created.value(at: "createTodo.owner")?.stringValue)
            let spying = SubscriptionEndToEndTests.Recorder(
                bob.subscribe(
                    request: Self.request(
                        "subscription Spy($owner: String) { onCreateTodo(owner: $owner) { name } }",
                        ["owner": .string(aliceOwner)]
                    )
                )
            )
            try await spying.wait("the refusal") { $0.ended != nil }
            guard case .failure(let error as AppSyncRealTimeError)? = spying.ended else {
                Issue.record("a subscription to another owner's items was started: \(String(describing: spying.ended))")
                await backend.stop()
                return
            }
            #expect(error.errorType == "Unauthorized")
            #expect(error.errors.first?.message == "Not Authorized to access onCreateTodo on type Subscription")
            bobHears.task.cancel()
            aliceHears.task.cancel()
        } catch {
            await backend.stop()
            throw error
        }
        await backend.stop()
    }
}
