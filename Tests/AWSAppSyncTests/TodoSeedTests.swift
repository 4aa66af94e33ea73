import AWSAppSync
import AWSPluginsCore
import Foundation
import StratusTesting
import Testing
import TodoAPI

/// The AppSync client guide's snippets over the generated Todo API (Tests/Fixtures/TodoAPI),
/// with responses of the local backend serving the guide's Todo schema.
@Suite struct TodoSeedTests {
    /// The guide's Todo schema.
    static let schema: String = {
        let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appending(path: "Fixtures/todo.graphql")
        do {
            return try String(contentsOf: url, encoding: .utf8)
        } catch {
            preconditionFailure("Cannot read \(url.path): \(error)")
        }
    }()

    @Test func mutationQueryAndOptimisticUpdateShapesWork() async throws {
        let backend = try await LocalBackend.start(schema: Self.schema)
        do {
            // Run a mutation.
            let mutationInput = CreateTodoInput(name: "Use AppSync", description: "Realtime and Offline")
            let created = try await backend.perform(CreateTodoMutation(input: mutationInput))
            #expect(created.errors == nil)
            #expect(created.source == .server)
            let todo = try #require(created.data?.createTodo)
            #expect(todo.name == "Use AppSync")
            #expect(todo.description == "Realtime and Offline")
            #expect(todo.__typename == "Todo")

            // Run a query.
            let result: GraphQLResult<ListTodosQuery.Data>? = try await backend.perform(ListTodosQuery())
            var printed: [String] = []
            // swift-format-ignore: ReplaceForEachWithForLoop
            // The guide's own line.
            result?.data?.listTodos?.items!.forEach { printed.append(($0?.name)! + " " + ($0?.description)!) }
            #expect(printed == ["Use AppSync Realtime and Offline"])

            // The optimistic update's transaction body, then the clean-up of the optimistic item.
            var data = try #require(result?.data)
            let input = mutationInput
            let UUID = Foundation.UUID().uuidString
            data.listTodos?.items?.append(
                ListTodosQuery.Data.ListTodo.Item.init(id: UUID, name: input.name, description: input.description!)
            )
            #expect(data.listTodos?.items?.count == 2)
            let written = try data.jsonObject()
            #expect(try ListTodosQuery.Data(jsonObject: written) == data)
            var pos = -1
            var counter = 0
            for item in (data.listTodos?.items!)! {
                if item?.id == UUID {
                    pos = counter
                    continue
                }
                counter += 1
            }
            if pos != -1 { data.listTodos?.items?.remove(at: pos) }
            #expect(data == result?.data)
        } catch {
            await backend.stop()
            throw error
        }
        await backend.stop()
    }

    @Test func fragmentsAliasesAndConditionsReadRealResponses() async throws {
        let backend = try await LocalBackend.start(schema: Self.schema)
        do {
            let created = try await backend.perform(
                CreateTodoMutation(input: CreateTodoInput(id: "t1", name: "Milk", description: "2 litres"))
            )
            #expect(created.data?.createTodo?.id == "t1")

            let got = try await backend.perform(GetTodoQuery(id: "t1"))
            let todo = try #require(got.data?.getTodo)
            #expect(todo.name == "Milk")
            #expect(todo.fragments.todoDetails.description == "2 litres")

            let withDescription = try await backend.perform(ListTodoTitlesQuery(withDescription: true))
            let first = try #require(withDescription.data?.firstPage?.items?.first ?? nil)
            #expect(first.title == "Milk")
            #expect(first.description == "2 litres")
            let without = try await backend.perform(ListTodoTitlesQuery(withDescription: false))
            let bare = try #require(without.data?.firstPage?.items?.first ?? nil)
            #expect(bare.title == "Milk")
            #expect(bare.description == nil)
            #expect(bare.snapshot["description"] == nil)
        } catch {
            await backend.stop()
            throw error
        }
        await backend.stop()
    }

    @Test func anInlineFragmentOnAnotherTypeIsReadByTypename() throws {
        let todo = try GetNodeQuery.Data(jsonObject: [
            "node": ["__typename": "Todo", "id": "t1", "name": "Milk", "status": "DONE"]
        ])
        #expect(todo.node?.id == "t1")
        #expect(todo.node?.asTodo?.name == "Milk")
        #expect(todo.node?.asTodo?.status == .done)
        let other = try GetNodeQuery.Data(jsonObject: ["node": ["__typename": "Note", "id": "n1"]])
        #expect(other.node?.id == "n1")
        #expect(other.node?.asTodo == nil)
        let missing = #expect(throws: JSONDecodingError.self) {
            try GetNodeQuery.Data(jsonObject: ["node": ["__typename": "Todo", "id": "t1", "status": nil]])
        }
        #expect(missing?.path == ["node", "name"])
        var built = GetNodeQuery.Data(node: .init(__typename: "Todo", id: "t2"))
        built.node?.asTodo = .init(id: "t2", name: "Eggs", status: .unknown("LATER"))
        #expect(
            try built.jsonObject() == ["node": ["__typename": "Todo", "id": "t2", "name": "Eggs", "status": "LATER"]]
        )
    }

    @Test func aFailedConditionComesBackAsAnAppSyncError() async throws {
        let backend = try await LocalBackend.start(schema: Self.schema)
        do {
            _ = try await backend.perform(CreateTodoMutation(input: CreateTodoInput(id: "t1", name: "Milk")))
            let condition = ModelTodoConditionInput(name: ModelStringInput(eq: "Bread"))
            let result = try await backend.perform(
                UpdateTodoMutation(input: UpdateTodoInput(id: "t1", name: "Eggs"), condition: condition)
            )
            #expect(result.data?.updateTodo == nil)
            let error = try #require(result.errors?.first)
            #expect(error.errorType == "ConditionalCheckFailedException")
            #expect(error.path == ["updateTodo"])
        } catch {
            await backend.stop()
            throw error
        }
        await backend.stop()
    }
}

/// The guide's subscription snippet over the local backend's real-time endpoint.
@Suite struct TodoSubscriptionTests {
    /// The API key in AppSync's real-time authorization objects.
    struct APIKeyAuthorizer: AppSyncRealTimeAuthorizer {
        let key: String

        func connectionAuthorization(graphQLURL: URL) async throws -> [String: String] {
            ["host": "\(graphQLURL.host ?? ""):\(graphQLURL.port ?? 80)", "x-api-key": key]
        }

        func startAuthorization(graphQLURL: URL, data: String) async throws -> [String: String] {
            try await connectionAuthorization(graphQLURL: graphQLURL)
        }
    }

    @Test(.timeLimit(.minutes(1))) func aCreatedTodoArrivesAsTheGuideReadsIt() async throws {
        let backend = try await LocalBackend.start(schema: TodoSeedTests.schema)
        do {
            let client = AppSyncRealTimeClient(
                graphQLURL: backend.endpoint,
                authorizer: APIKeyAuthorizer(key: backend.apiKey)
            )
            let request: JSONValue = ["query": .string(OnCreateTodoSubscription.operationString), "variables": [:]]
            let stream = await client.subscribe(
                data: String(decoding: try JSONEncoder().encode(request), as: UTF8.self)
            )
            var events = stream.makeAsyncIterator()
            while let event = try await events.next(), event != .connection(.connected) {}
            _ = try await backend.perform(
                CreateTodoMutation(input: CreateTodoInput(name: "Use AppSync", description: "Realtime and Offline"))
            )
            var payload: JSONValue?
            while let event = try await events.next() {
                if case .data(let data) = event {
                    payload = data
                    break
                }
            }
            let result = try GraphQLResult(response: try #require(payload), operation: OnCreateTodoSubscription())
            #expect(
                result.data!.onCreateTodo!.name + " " + result.data!.onCreateTodo!.description!
                    == "Use AppSync Realtime and Offline"
            )
            #expect(result.data?.onCreateTodo?.__typename == "Todo")
        } catch {
            await backend.stop()
            throw error
        }
        await backend.stop()
    }
}
