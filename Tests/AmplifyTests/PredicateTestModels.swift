import Amplify

/// Hand-written models in the shape generated code takes, for the predicate tests.
///
/// Namespaced so that they do not shadow the generated `BlogModels` of the same names; each test
/// file aliases the ones it uses.
enum PredicateFixtures {
    enum PostStatus: String, EnumPersistable {
        case draft
        case active
        case archived
    }

    struct Post: Model {
        let id: String
        var title: String
        var rating: Int
        var score: Double?
        var status: PostStatus
        var tags: [String]?
        var published: Bool?
        var createdAt: Temporal.DateTime?
        var publishedOn: Temporal.Date?
        var opensAt: Temporal.Time?
        var comments: List<Comment>?

        init(
            id: String = "p1",
            title: String = "banana",
            rating: Int = 4,
            score: Double? = nil,
            status: PostStatus = .active,
            tags: [String]? = nil,
            published: Bool? = nil,
            createdAt: Temporal.DateTime? = nil,
            publishedOn: Temporal.Date? = nil,
            opensAt: Temporal.Time? = nil
        ) {
            self.id = id
            self.title = title
            self.rating = rating
            self.score = score
            self.status = status
            self.tags = tags
            self.published = published
            self.createdAt = createdAt
            self.publishedOn = publishedOn
            self.opensAt = opensAt
            self.comments = nil
        }

        enum CodingKeys: String, ModelKey {
            case id
            case title
            case rating
            case score
            case status
            case tags
            case published
            case createdAt
            case publishedOn
            case opensAt
            case comments
        }

        static let keys = CodingKeys.self

        static let schema = defineSchema { model in
            let post = Post.keys
            model.listPluralName = "Posts"
            model.fields(
                .id(),
                .field(post.title, is: .required, ofType: .string),
                .field(post.rating, is: .required, ofType: .int),
                .field(post.score, is: .optional, ofType: .double),
                .field(post.status, is: .required, ofType: .enum(type: PostStatus.self)),
                .field(post.tags, is: .optional, ofType: .embeddedCollection(of: .string)),
                .field(post.published, is: .optional, ofType: .bool),
                .field(post.createdAt, is: .optional, ofType: .dateTime),
                .field(post.publishedOn, is: .optional, ofType: .date),
                .field(post.opensAt, is: .optional, ofType: .time),
                .hasMany(post.comments, is: .optional, ofType: Comment.self, associatedWith: Comment.keys.post)
            )
        }
    }

    struct Comment: Model {
        let id: String
        var content: String
        var post: Post?

        enum CodingKeys: String, ModelKey {
            case id
            case content
            case post
        }

        static let keys = CodingKeys.self

        static let schema = defineSchema { model in
            let comment = Comment.keys
            model.fields(
                .id(),
                .field(comment.content, is: .required, ofType: .string),
                .belongsTo(comment.post, is: .optional, ofType: Post.self, targetNames: ["postID"])
            )
        }
    }
}
