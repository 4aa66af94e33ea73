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

/// `postSchema` with its model open to every authorization mode, as an API that admits
/// additional modes must say: a model without directives admits the default mode alone.
let postSchemaForEveryMode = postSchema.replacingOccurrences(
    of: "type Post @model {",
    with: "type Post @model @aws_api_key @aws_iam @aws_cognito_user_pools @aws_oidc @aws_lambda {"
)

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

/// A model with a field of every kind filters and merges care about.
let noteSchema = """
    type Note @model {
      id: ID!
      title: String!
      body: String
      tags: [String]
      rating: Int
      score: Float
      done: Boolean
      kind: Kind
      kinds: [Kind]
      metadata: AWSJSON
      due: AWSDate
      address: Address
      priority: Int @default(value: "3")
    }

    type Address {
      street: String
      city: String
    }

    enum Kind {
      A
      B
      C
    }
    """

/// Relations, keys and indexes.
let blogSchema = """
    type Blog @model {
      id: ID!
      name: String!
      posts: [Post] @hasMany(indexName: "byBlog", fields: ["id"])
      settings: Settings @hasOne
    }

    type Settings @model {
      id: ID!
      theme: String
    }

    type Post @model {
      id: ID!
      title: String!
      blogID: ID! @index(name: "byBlog", sortKeyFields: ["title"], queryField: "postsByBlog")
      blog: Blog @belongsTo(fields: ["blogID"])
      comments: [Comment] @hasMany
      tags: [Tag] @manyToMany(relationName: "PostTags")
    }

    type Comment @model {
      id: ID!
      content: String!
      post: Post @belongsTo
    }

    type Tag @model {
      id: ID!
      label: String!
      posts: [Post] @manyToMany(relationName: "PostTags")
    }

    type Order @model {
      customerId: ID! @primaryKey(sortKeyFields: ["placedAt", "number"])
      placedAt: AWSTimestamp!
      number: Int!
      total: Float
    }
    """
