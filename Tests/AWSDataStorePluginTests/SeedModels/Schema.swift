// The models in this folder were generated from the schema below, the DataStore guide's schemas
// merged (a post has many comments through a legacy @connection, and many editors through the
// PostEditor join model), with:
//
//     stratus codegen models --schema schema.graphql --output Tests/AWSDataStorePluginTests/SeedModels
//
// type Post @model {
//   id: ID!
//   title: String!
//   comments: [Comment] @connection(name: "PostComments")
//   rating: Int!
//   status: String!
//   editors: [PostEditor] @connection(keyName: "byPost", fields: ["id"])
// }
//
// type Comment @model {
//   id: ID!
//   content: String
//   post: Post @connection(name: "PostComments")
// }
//
// type PostEditor @model @key(name: "byPost", fields: ["postID", "editorID"]) @key(name: "byEditor", fields: ["editorID", "postID"]) {
//   id: ID!
//   postID: ID!
//   editorID: ID!
//   post: Post! @connection(fields: ["postID"])
//   editor: User! @connection(fields: ["editorID"])
// }
//
// type User @model {
//   id: ID!
//   username: String!
//   posts: [PostEditor] @connection(keyName: "byEditor", fields: ["id"])
// }
