import StratusCodegen
import Testing

/// The registry version changes exactly when the stored shape changes.
@Suite struct SchemaVersionTests {
    static let base = """
        enum Status { ACTIVE INACTIVE }
        type Post @model @auth(rules: [{ allow: owner }]) {
          id: ID!
          title: String!
          rating: Int
          tags: [String]
          status: Status
          comments: [Comment] @hasMany(indexName: "byPost", fields: ["id"])
        }
        type Comment @model {
          id: ID!
          postID: ID! @index(name: "byPost")
          content: String
        }
        """

    func version(_ source: String) throws -> String {
        SchemaVersion.version(of: try SchemaParser().parse(source))
    }

    @Test(
        arguments: [
            ("a field type", "rating: Int", "rating: Float"),
            ("nullability", "title: String!", "title: String"),
            ("list-ness", "tags: [String]", "tags: String"),
            ("list element nullability", "tags: [String]", "tags: [String!]"),
            ("a new field", "rating: Int", "rating: Int\n  views: Int"),
            ("a removed field", "  rating: Int\n", ""),
            ("a renamed field", "rating: Int", "score: Int"),
            (
                "the primary key", "  id: ID!\n  title: String!",
                "  id: ID! @primaryKey(sortKeyFields: [\"title\"])\n  title: String!"
            ),
            (
                "an index", "postID: ID! @index(name: \"byPost\")",
                "postID: ID! @index(name: \"byPost\", sortKeyFields: [\"content\"])"
            ),
            (
                "a relation", "comments: [Comment] @hasMany(indexName: \"byPost\", fields: [\"id\"])",
                "comments: [Comment] @hasMany"
            ),
            ("a new model", "type Comment @model {", "type Tag @model { id: ID! }\ntype Comment @model {"),
            ("timestamps", "type Comment @model {", "type Comment @model(timestamps: null) {"),
        ]
    )
    func changesWhenStoredShapeChanges(what: String, from: String, to: String) throws {
        let changed = Self.base.replacingOccurrences(of: from, with: to)
        #expect(changed != Self.base, "the edit for \(what) did not apply")
        #expect(try version(changed) != version(Self.base), "\(what) must change the version")
    }

    @Test(
        arguments: [
            (
                "auth rules", "@auth(rules: [{ allow: owner }])",
                "@auth(rules: [{ allow: groups, groups: [\"Admin\"] }])"
            ),
            ("removing auth", "@auth(rules: [{ allow: owner }])", ""),
            ("field order", "  title: String!\n  rating: Int\n", "  rating: Int\n  title: String!\n"),
            ("enum values", "enum Status { ACTIVE INACTIVE }", "enum Status { ACTIVE INACTIVE ARCHIVED }"),
            ("operations", "type Comment @model {", "type Comment @model(subscriptions: null) {"),
            ("comments and whitespace", "  title: String!", "  # the headline\n  title:   String!"),
            ("a query field", "@index(name: \"byPost\")", "@index(name: \"byPost\", queryField: \"commentsByPost\")"),
        ]
    )
    func staysWhenStoredShapeDoesNot(what: String, from: String, to: String) throws {
        let changed = Self.base.replacingOccurrences(of: from, with: to)
        #expect(changed != Self.base, "the edit for \(what) did not apply")
        #expect(try version(changed) == version(Self.base), "\(what) must not change the version")
    }

    @Test func versionIsAStableHexDigest() throws {
        let value = try version(Self.base)
        #expect(value.count == 32)
        #expect(value.allSatisfy { $0.isHexDigit && !$0.isUppercase })
        #expect(try version(Self.base) == value)
    }
}
