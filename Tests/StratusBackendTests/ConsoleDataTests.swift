import Foundation
import NIOHTTP1
import StratusBackend
import StratusServer
import Synchronization
import Testing

/// The Data page's admin API: an item's history from the delta journal, and made-up items
/// created through the API as an identity.
@Suite struct ConsoleDataTests {
    typealias Served = ConsoleTests.Served

    static let schema = """
        enum Mood { HAPPY CALM }
        type Geo { lat: Float! lng: Float! }
        type Address { street: String! city: String geo: Geo }
        type Everything @model @auth(rules: [{ allow: public }]) {
          id: ID!
          text: String!
          count: Int!
          ratio: Float!
          flag: Boolean!
          ref: ID!
          day: AWSDate!
          time: AWSTime!
          moment: AWSDateTime!
          stamp: AWSTimestamp!
          email: AWSEmail!
          url: AWSURL!
          phone: AWSPhone!
          ip: AWSIPAddress!
          json: AWSJSON!
          mood: Mood!
          moods: [Mood!]
          tags: [String!]!
          address: Address!
          addresses: [Address]
        }
        type Blog @model @auth(rules: [{ allow: public }]) { id: ID! name: String! posts: [Post] @hasMany }
        type Post @model @auth(rules: [{ allow: public }]) { id: ID! title: String! blog: Blog @belongsTo }
        type Order @model @auth(rules: [{ allow: public }]) {
          customerId: ID! @primaryKey(sortKeyFields: ["number"])
          number: Int!
          note: String
        }
        type Secret @model @auth(rules: [{ allow: owner }]) { id: ID! text: String }
        """

    static let bearer = ("authorization", "Bearer \(ConsoleTests.secret)")

    static func served(cognito: Bool = false, clock: @escaping @Sendable () -> Date = { Date() }) async throws -> Served
    {
        try await Served(schema: schema, cognito: cognito, clock: clock)
    }

    static func post(_ served: Served, _ path: String, _ body: JSON) async throws -> (status: Int, body: JSON) {
        let answer = try await served.send(.POST, path, body: body.text, headers: [bearer])
        return (answer.status, try JSON(parsing: answer.body))
    }

    /// Runs `query` through the console's GraphQL route as the API key: the API's answer.
    static func graphQL(_ served: Served, _ query: String, _ variables: JSONObject = [:]) async throws -> JSON {
        let answer = try await post(
            served,
            "/console/api/graphql",
            ["query": .string(query), "variables": .object(variables)]
        )
        #expect(answer.status == 200, "\(answer.body.text)")
        return try #require(answer.body["response"])
    }

    // MARK: - Who may call

    /// The Data page's routes, with a body that would make an item.
    static let routes: [(method: HTTPMethod, path: String, body: String?)] = [
        (.GET, "/console/api/history?model=Blog&id=b1", nil),
        (.POST, "/console/api/generate", #"{"model":"Blog","count":2,"identity":{"type":"API_KEY"}}"#),
    ]

    @Test(arguments: routes.indices) func aDataRouteWithoutTheSecretGets401AndChangesNothing(route: Int) async throws {
        let (method, path, body) = Self.routes[route]
        let served = try await Self.served()
        let withoutSecret = try await served.send(method, path, body: body)
        let wrongSecret = try await served.send(method, path, body: body, headers: [("authorization", "Bearer nope")])
        let blogs = try await Self.graphQL(served, "{ listBlogs { items { id } } }")
        await served.stop()
        for answer in [withoutSecret, wrongSecret] {
            #expect(answer.status == 401)
            #expect(answer.body == ConsoleTests.unauthorizedAPIBody)
        }
        #expect(blogs == ["data": ["listBlogs": ["items": []]]])
    }

    @Test(arguments: routes.indices) func aDataRouteFromAnotherSiteGets403AndChangesNothing(route: Int) async throws {
        let (method, path, body) = Self.routes[route]
        let served = try await Self.served()
        let otherOrigin = try await served.send(
            method,
            path,
            body: body,
            headers: [Self.bearer, ("origin", "http://evil.example")]
        )
        let crossSite = try await served.send(
            method,
            path,
            body: body,
            headers: [Self.bearer, ("sec-fetch-site", "cross-site")]
        )
        let blogs = try await Self.graphQL(served, "{ listBlogs { items { id } } }")
        await served.stop()
        #expect(otherOrigin.status == 403)
        #expect(crossSite.status == 403)
        #expect(
            otherOrigin.body
                == #"{"errors":[{"errorType":"AccessDeniedException","message":"The console answers only its own "#
                + #"pages; this request comes from another site (Origin: http://evil.example)."}]}"#
        )
        #expect(blogs == ["data": ["listBlogs": ["items": []]]])
    }

    @Test func theModelsRouteNamesTheCreateMutationAndItsInput() async throws {
        let served = try await Self.served()
        let answer = try await served.send(.GET, "/console/api/models", headers: [Self.bearer])
        await served.stop()
        let blog = try #require(JSON(parsing: answer.body)["models"]?.arrayValue?.first { $0["name"] == "Blog" })
        #expect(blog["create"] == "createBlog")
        #expect(blog["createInput"] == "CreateBlogInput")
    }

    // MARK: - History

    /// A clock the test moves.
    final class Clock: Sendable {
        let now: Mutex<Date>
        init(_ date: Date) { now = Mutex(date) }
        func advance(by seconds: TimeInterval) { now.withLock { $0 += seconds } }
        var read: @Sendable () -> Date { { self.now.withLock { $0 } } }
    }

    /// 2026-01-01T00:00:00Z.
    static let start = Date(timeIntervalSince1970: 1_767_225_600)

    @Test func historyListsEachVersionOfAnItemFromTheJournal() async throws {
        let clock = Clock(Self.start)
        let served = try await Self.served(clock: clock.read)
        _ = try await Self.graphQL(served, #"mutation { createBlog(input: {id: "b1", name: "first"}) { id } }"#)
        clock.advance(by: 1)
        _ = try await Self.graphQL(
            served,
            #"mutation { updateBlog(input: {id: "b1", name: "second", _version: 1}) { id } }"#
        )
        clock.advance(by: 1)
        _ = try await Self.graphQL(served, #"mutation { deleteBlog(input: {id: "b1", _version: 2}) { id } }"#)
        let answer = try await served.send(.GET, "/console/api/history?model=Blog&id=b1", headers: [Self.bearer])
        let none = try await served.send(.GET, "/console/api/history?model=Blog&id=b2", headers: [Self.bearer])
        await served.stop()
        #expect(answer.status == 200)
        let created = "2026-01-01T00:00:00.000Z"
        #expect(
            answer.body
                == #"{"model":"Blog","key":{"id":"b1"},"currentVersion":3,"retentionSeconds":1800,"#
                + #""missesOlderVersions":false,"versions":["#
                + #"{"version":1,"lastChangedAt":1767225600000,"time":"2026-01-01T00:00:00.000Z","operation":"CREATE","#
                + #""fields":{"id":"b1","name":"first","createdAt":"\#(created)","updatedAt":"\#(created)"}},"#
                + #"{"version":2,"lastChangedAt":1767225601000,"time":"2026-01-01T00:00:01.000Z","operation":"UPDATE","#
                + #""fields":{"id":"b1","name":"second","createdAt":"\#(created)","#
                + #""updatedAt":"2026-01-01T00:00:01.000Z"}},"#
                // A deletion leaves the fields as they were, updatedAt included.
                + #"{"version":3,"lastChangedAt":1767225602000,"time":"2026-01-01T00:00:02.000Z","operation":"DELETE","#
                + #""fields":{"id":"b1","name":"second","createdAt":"\#(created)","#
                + #""updatedAt":"2026-01-01T00:00:01.000Z"}}]}"#
        )
        #expect(
            none.body
                == #"{"model":"Blog","key":{"id":"b2"},"currentVersion":null,"retentionSeconds":1800,"#
                + #""missesOlderVersions":false,"versions":[]}"#
        )
    }

    /// The journal keeps a change for the delta sync TTL (30 minutes): an item created longer
    /// ago than that and changed since has only its newer versions listed, and the answer says so.
    @Test func historySaysWhenTheJournalNoLongerHoldsOlderVersions() async throws {
        let clock = Clock(Self.start)
        let served = try await Self.served(clock: clock.read)
        _ = try await Self.graphQL(served, #"mutation { createBlog(input: {id: "b1", name: "first"}) { id } }"#)
        clock.advance(by: 31 * 60)
        _ = try await Self.graphQL(
            served,
            #"mutation { updateBlog(input: {id: "b1", name: "second", _version: 1}) { id } }"#
        )
        let answer = try await served.send(.GET, "/console/api/history?model=Blog&id=b1", headers: [Self.bearer])
        clock.advance(by: 31 * 60)
        let later = try await served.send(.GET, "/console/api/history?model=Blog&id=b1", headers: [Self.bearer])
        await served.stop()
        let body = try JSON(parsing: answer.body)
        #expect(body["missesOlderVersions"] == true)
        #expect(body["currentVersion"] == 2)
        #expect(body["versions"]?.arrayValue?.map { $0["version"] } == [2])
        let empty = try JSON(parsing: later.body)
        #expect(empty["missesOlderVersions"] == true)
        #expect(empty["versions"] == [])
    }

    @Test func historyOfACompositeKeyTakesEachKeyField() async throws {
        let served = try await Self.served()
        _ = try await Self.graphQL(
            served,
            #"mutation { createOrder(input: {customerId: "c1", number: 7, note: "n"}) { customerId } }"#
        )
        _ = try await Self.graphQL(
            served,
            #"mutation { createOrder(input: {customerId: "c1", number: 8, note: "other"}) { customerId } }"#
        )
        let answer = try await served.send(
            .GET,
            "/console/api/history?model=Order&customerId=c1&number=7",
            headers: [Self.bearer]
        )
        await served.stop()
        let body = try JSON(parsing: answer.body)
        #expect(body["key"] == ["customerId": "c1", "number": 7])
        #expect(body["versions"]?.arrayValue?.map { $0["fields"]?["note"] } == ["n"])
    }

    @Test(arguments: [
        (
            "/console/api/history", 400,
            "Name the model and the item's key: /console/api/history?model=Post&id=p1."
        ),
        (
            "/console/api/history?model=Nope&id=1", 404,
            "The schema has no model 'Nope'. Its models are Everything, Blog, Post, Order, Secret."
        ),
        (
            "/console/api/history?model=Order&customerId=c1", 400,
            "The key of Order has no value for number. Give its primary key: customerId, number."
        ),
        (
            "/console/api/history?model=Order&customerId=c1&number=seven", 400,
            "The key field number of Order is an Int: 'seven' is not one."
        ),
        (
            "/console/api/history?model=Order&customerId=c1&number=7&id=x", 400,
            "id is not a key field of Order. Give its primary key: customerId, number."
        ),
    ])
    func historyRefusesARequestThatNamesNoItem(path: String, status: Int, message: String) async throws {
        let served = try await Self.served()
        let answer = try await served.send(.GET, path, headers: [Self.bearer])
        await served.stop()
        #expect(answer.status == status)
        #expect(
            answer.body
                == JSON.object(["errors": [["errorType": "BadRequestException", "message": .string(message)]]]).text
        )
    }

    @Test func historyOfAModelWithoutConflictDetectionSaysWhy() async throws {
        var configuration = ServerConfiguration()
        configuration.modelsWithoutConflictDetection = ["Blog"]
        let served = try await Served(schema: Self.schema, server: configuration)
        let answer = try await served.send(.GET, "/console/api/history?model=Blog&id=b1", headers: [Self.bearer])
        await served.stop()
        #expect(answer.status == 400)
        let message = try JSON(parsing: answer.body)["errors"]?[0]?["message"]?.stringValue
        #expect(
            message
                == "Blog keeps no history: the delta journal records the changes of models with conflict detection "
                + "only. Serve without turning conflict detection off for Blog."
        )
    }

    // MARK: - Generate

    static let everyField =
        "id text count ratio flag ref day time moment stamp email url phone ip json mood moods tags "
        + "address { street city geo { lat lng } } addresses { street city geo { lat lng } }"

    /// Every scalar, an enum, lists and nested non-model types: each generated item is created
    /// by the real API, which checks each AWS scalar's format as AppSync does.
    @Test func generatedItemsOfEveryTypeAreAcceptedByTheAPI() async throws {
        let served = try await Self.served()
        let made = try await Self.post(
            served,
            "/console/api/generate",
            ["model": "Everything", "count": 40, "seed": 1, "identity": ["type": "API_KEY"]]
        )
        let listed = try await Self.graphQL(served, "{ listEverythings(limit: 100) { items { \(Self.everyField) } } }")
        await served.stop()
        #expect(made.status == 200)
        #expect(made.body["created"] == 40, "\(made.body.text)")
        // The API's message for each refusal, to read when a value is one it does not accept.
        #expect(made.body["refusals"]?.arrayValue?.map { $0["errors"]?[0]?["message"]?.stringValue } == [])
        #expect(made.body["seed"] == "1")
        let items = try #require(listed["data"]?["listEverythings"]?["items"]?.arrayValue)
        #expect(items.count == 40)
        #expect(listed["errors"] == nil, "\(listed.text)")
        let madeIDs = Set(made.body["items"]?.arrayValue?.compactMap { $0["id"]?.stringValue } ?? [])
        #expect(Set(items.compactMap { $0["id"]?.stringValue }) == madeIDs)
        for item in items {
            for field in ["text", "count", "ratio", "flag", "day", "time", "moment", "stamp", "email", "url"] {
                #expect(item[field].map { !$0.isNull } == true, "\(field) of \(item.text)")
            }
            #expect(["HAPPY", "CALM"].contains(item["mood"]?.stringValue ?? ""))
            #expect(item["address"]?["street"]?.stringValue?.isEmpty == false)
        }
        // Both values of the Boolean and of the enum appear among 40 items.
        #expect(Set(items.compactMap { $0["flag"]?.boolValue }) == [true, false])
        #expect(Set(items.compactMap { $0["mood"]?.stringValue }) == ["HAPPY", "CALM"])
    }

    @Test func theSameSeedMakesTheSameItems() async throws {
        let served = try await Self.served()
        func preview(_ seed: Int) async throws -> JSON {
            try await Self.post(
                served,
                "/console/api/generate",
                ["model": "Everything", "count": 3, "seed": .int(seed), "preview": true]
            ).body
        }
        let first = try await preview(7)
        let again = try await preview(7)
        let other = try await preview(8)
        let required = try await Self.post(
            served,
            "/console/api/generate",
            ["model": "Post", "preview": true, "requiredOnly": true, "seed": 7]
        )
        let listed = try await Self.graphQL(served, "{ listEverythings { items { id } } }")
        await served.stop()
        #expect(first == again)
        #expect(first != other)
        #expect(first["items"]?.arrayValue?.count == 3)
        // A preview creates nothing.
        #expect(listed == ["data": ["listEverythings": ["items": []]]])
        // The API makes the id: a new item's form asks only for the title.
        #expect(required.body["items"]?[0]?.objectValue?.keys == ["title"])
    }

    /// A post's foreign key points at one of the blogs there are; with none, it stays empty.
    @Test func generatedItemsPointAtExistingItemsOfTheRelatedModel() async throws {
        let served = try await Self.served()
        let orphans = try await Self.post(served, "/console/api/generate", ["model": "Post", "count": 2, "seed": 3])
        let blogs = try await Self.post(served, "/console/api/generate", ["model": "Blog", "count": 3, "seed": 4])
        let posts = try await Self.post(served, "/console/api/generate", ["model": "Post", "count": 8, "seed": 5])
        let listed = try await Self.graphQL(served, "{ listPosts(limit: 100) { items { id blogPostsId } } }")
        await served.stop()
        #expect(orphans.body["created"] == 2)
        #expect(blogs.body["created"] == 3)
        #expect(posts.body["created"] == 8)
        let blogIDs = Set(blogs.body["items"]?.arrayValue?.compactMap { $0["id"]?.stringValue } ?? [])
        let orphanIDs = Set(orphans.body["items"]?.arrayValue?.compactMap { $0["id"]?.stringValue } ?? [])
        let items = try #require(listed["data"]?["listPosts"]?["items"]?.arrayValue)
        #expect(items.count == 10)
        for item in items {
            let id = item["id"]?.stringValue ?? ""
            if orphanIDs.contains(id) {
                #expect(item["blogPostsId"] == .null)
            } else {
                #expect(blogIDs.contains(item["blogPostsId"]?.stringValue ?? ""), "\(item.text)")
            }
        }
        // Eight posts among three blogs: more than one blog is used.
        #expect(Set(items.compactMap { $0["blogPostsId"]?.stringValue }).count > 1)
    }

    /// The API's `@auth` decides: the API key may not create an owner's items, and each refusal is
    /// reported with the API's errors; a Cognito user may, and owns them.
    @Test func generateRunsAsTheIdentityAndReportsRefusals() async throws {
        let served = try await Self.served(cognito: true)
        let pool = try #require(served.backend.cognito)
        try await pool.addUser(username: "alice", password: "Alice-pass1!")
        let refused = try await Self.post(served, "/console/api/generate", ["model": "Secret", "count": 2, "seed": 1])
        let owned = try await Self.post(
            served,
            "/console/api/generate",
            [
                "model": "Secret", "count": 2, "seed": 2,
                "identity": ["type": "AMAZON_COGNITO_USER_POOLS", "username": "alice"],
            ]
        )
        let sub = try #require(try await pool.listUsers().first { $0.username == "alice" }?.sub)
        let listed = try await Self.post(
            served,
            "/console/api/graphql",
            [
                "query": "{ listSecrets { items { id owner } } }",
                "identity": ["type": "AMAZON_COGNITO_USER_POOLS", "username": "alice"],
            ]
        )
        await served.stop()
        #expect(refused.body["created"] == 0)
        let refusals = try #require(refused.body["refusals"]?.arrayValue)
        #expect(refusals.map { $0["index"] } == [0, 1])
        #expect(
            refusals.map { $0["errors"]?[0]?["message"]?.stringValue }
                == Array(repeating: "Not Authorized to access createSecret on type Mutation", count: 2)
        )
        #expect(refusals[0]["input"]?["id"] != nil)
        #expect(owned.body["created"] == 2, "\(owned.body.text)")
        let owners = listed.body["response"]?["data"]?["listSecrets"]?["items"]?.arrayValue?.map {
            $0["owner"]?.stringValue
        }
        #expect(owners == ["\(sub)::alice", "\(sub)::alice"])
    }

    @Test(arguments: [
        (
            #"{"count": 2}"#, 400,
            #"The body names no model. Send {"model": "Post", "count": 5, "identity": {"type": "API_KEY"}}."#
        ),
        (
            #"{"model": "Nope", "count": 2}"#, 404,
            "The schema has no model 'Nope'. Its models are Everything, Blog, Post, Order, Secret."
        ),
        (#"{"model": "Blog"}"#, 400, "The count is missing. Ask for 1 to 100 items."),
        (#"{"model": "Blog", "count": 101}"#, 400, "The count is 101. Ask for 1 to 100 items."),
        (
            #"{"model": "Blog", "count": 1, "seed": -1}"#, 400,
            "The seed is -1. Give a whole number of 0 or more, or leave it out."
        ),
        (
            #"{"model": "Blog", "count": 1, "identity": {"type": "X"}}"#, 400,
            "Unknown identity type 'X'. Use API_KEY, AMAZON_COGNITO_USER_POOLS with a username, AWS_IAM with an "
                + "accessKeyId or identityPool (guest, or user with a username), or OPENID_CONNECT or AWS_LAMBDA "
                + "with a token."
        ),
    ])
    func generateRefusesABadRequest(body: String, status: Int, message: String) async throws {
        let served = try await Self.served()
        let answer = try await served.send(.POST, "/console/api/generate", body: body, headers: [Self.bearer])
        await served.stop()
        #expect(answer.status == status)
        #expect(
            answer.body
                == JSON.object(["errors": [["errorType": "BadRequestException", "message": .string(message)]]]).text
        )
    }
}
