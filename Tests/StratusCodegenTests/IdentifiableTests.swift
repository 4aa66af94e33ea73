import BlogModels
import StratusCodegen
import Testing

/// Generated models and AppSync selection sets are `Identifiable` when they have an `id`, so
/// that SwiftUI's `List` and `ForEach` take them.
@Suite struct IdentifiableTests {
    static func identifier<Item: Identifiable>(of item: Item) -> Item.ID { item.id }

    @Test func modelsWithAnIDAreIdentifiable() throws {
        let post = Post(id: "p1", title: "Hello", status: .published)
        #expect(Self.identifier(of: post) == "p1")
        #expect(!(Author.self is any Identifiable.Type), "Author's key is country and handle; it has no id")
    }

    @Test func selectionSetsWithAScalarIDAreIdentifiable() throws {
        let source = try TypesGenerator().generate(
            schema: APISchema(sdl: ServerAPIStub.sdl, fileName: "api.graphql"),
            statements: [
                StatementsFile(
                    path: "queries.graphql",
                    text:
                        "query ListTodos { listTodos { items { id name } } }\nquery Names { listTodos { items { name } } }"
                )
            ]
        )
        #expect(source.contains("public struct Item: GraphQLSelectionSet, Identifiable {"))
        #expect(source.contains("public struct Item: GraphQLSelectionSet {"))
        #expect(source.contains("public struct ListTodo: GraphQLSelectionSet {"))
    }
}

/// The SDL of a small Todo API.
enum ServerAPIStub {
    static let sdl = """
        type Query { listTodos: ModelTodoConnection }
        type ModelTodoConnection { items: [Todo] nextToken: String }
        type Todo { id: ID! name: String! }
        """
}
