import Foundation

/// The schema of backend.md §1.
let postSchema = """
    type Post @model {
      id: ID!
      title: String!
      rating: Int!
      status: PostStatus!
    }

    enum PostStatus {
      DRAFT
      PUBLISHED
    }
    """

/// The project's fixture schemas.
enum Fixtures {
    static let directory = URL(filePath: #filePath).deletingLastPathComponent().deletingLastPathComponent()

    static var blog: String {
        get throws { try String(contentsOf: directory.appending(path: "Fixtures/blog.graphql"), encoding: .utf8) }
    }

    static var features: String {
        get throws {
            try String(
                contentsOf: directory.appending(path: "StratusCodegenTests/Schemas/statements-features.graphql"),
                encoding: .utf8
            )
        }
    }
}
