import Foundation
import StratusServer
import Testing

/// Pages of list, index and relation queries, and their `nextToken`.
@Suite struct PaginationTests {
    /// Creates Post p1…p`count` with ratings 1…`count`.
    static func posts(_ count: Int) async throws -> TestServer {
        let server = try await TestServer(postSchema)
        for number in 1...count {
            let body = await server.run(
                "mutation { createPost(input: {id: \"p\(number)\", title: \"T\(number)\", rating: \(number), "
                    + "status: \(number % 2 == 0 ? "PUBLISHED" : "DRAFT")}) { id } }"
            )
            #expect(body == #"{"data":{"createPost":{"id":"p\#(number)"}}}"#)
        }
        return server
    }

    /// The ids of a connection and its token.
    static func page(_ body: JSON, _ field: String) throws -> (ids: [String], token: String?) {
        let connection = try #require(body["data"]?[field], "no connection in \(body.text)")
        let items = try #require(connection["items"]?.arrayValue, "no items in \(body.text)")
        return (items.compactMap { $0["id"]?.stringValue }, connection["nextToken"]?.stringValue)
    }

    static let listQuery = """
        query L($filter: ModelPostFilterInput, $limit: Int, $nextToken: String) {
          listPosts(filter: $filter, limit: $limit, nextToken: $nextToken) { items { id } nextToken }
        }
        """

    @Test func pagesFollowTheKeyOrderAndTheLastHasNoToken() async throws {
        let server = try await Self.posts(5)
        var seen: [[String]] = []
        var token: JSON = nil
        repeat {
            let page = try Self.page(await server.json(Self.listQuery, ["limit": 2, "nextToken": token]), "listPosts")
            seen.append(page.ids)
            token = page.token.map(JSON.string) ?? nil
        } while !token.isNull
        #expect(seen == [["p1", "p2"], ["p3", "p4"], ["p5"]])
    }

    @Test func aFilteredPageMayBeShortYetCarryAToken() async throws {
        let server = try await Self.posts(5)
        let filter: JSON = ["status": ["eq": "PUBLISHED"]]
        let first = try Self.page(await server.json(Self.listQuery, ["limit": 3, "filter": filter]), "listPosts")
        #expect(first.ids == ["p2"])
        let token = try #require(first.token)
        let second = try Self.page(
            await server.json(Self.listQuery, ["limit": 3, "filter": filter, "nextToken": .string(token)]),
            "listPosts"
        )
        #expect(second.ids == ["p4"])
        #expect(second.token == nil)
    }

    @Test func aTamperedTokenIsRefused() async throws {
        let server = try await Self.posts(3)
        let token = try #require(try Self.page(await server.json(Self.listQuery, ["limit": 1]), "listPosts").token)
        var bytes = Array(token)
        bytes[2] = bytes[2] == "A" ? "B" : "A"
        #expect(
            await server.run(Self.listQuery, ["limit": 1, "nextToken": .string(String(bytes))])
                == #"{"data":{"listPosts":null},"errors":[{"path":["listPosts"],"data":null,"#
                + #""errorType":"UserIllegalArgumentException","errorInfo":null,"#
                + #""locations":[{"line":2,"column":3,"sourceName":null}],"#
                + #""message":"Invalid pagination token given."}]}"#
        )
        #expect(
            await server.json(Self.listQuery, ["limit": 1, "nextToken": "not a token"])["errors"]?[0]?["message"]
                == "Invalid pagination token given."
        )
    }

    /// A token does not show the key of the last item scanned, which may be one the caller may
    /// not read: it is sealed, not only signed.
    @Test func aTokenDoesNotShowTheKeysItHolds() async throws {
        let server = try await Self.posts(3)
        let token = try #require(try Self.page(await server.json(Self.listQuery, ["limit": 1]), "listPosts").token)
        let decoded = try #require(Data(base64Encoded: Self.padded(token)))
        #expect(!String(decoding: decoded, as: UTF8.self).contains("p1"))
        #expect(!token.contains("."), "one sealed box, not a readable payload and its signature")
    }

    static func padded(_ base64URL: String) -> String {
        let standard = base64URL.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        return standard + String(repeating: "=", count: (4 - standard.count % 4) % 4)
    }

    @Test func aTokenOfAnotherQueryIsRefused() async throws {
        let server = try await Self.posts(3)
        let token = try #require(try Self.page(await server.json(Self.listQuery, ["limit": 1]), "listPosts").token)
        let body = await server.json(
            Self.listQuery,
            ["limit": 1, "nextToken": .string(token), "filter": ["rating": ["gt": 0]]]
        )
        #expect(body["errors"]?[0]?["errorType"] == "UserIllegalArgumentException")
        let sync = await server.json("{ syncPosts(limit: 1, nextToken: \"\(token)\") { items { id } } }")
        #expect(sync["errors"]?[0]?["errorType"] == "UserIllegalArgumentException")
    }

    @Test func limitDefaultsTo100AndIsCappedAtTheMaximum() async throws {
        #expect(ServerConfiguration().defaultPageSize == 100)
        #expect(ServerConfiguration().maximumPageSize == 1000)
        let server = try await TestServer(
            postSchema,
            configuration: ServerConfiguration(defaultPageSize: 2, maximumPageSize: 3)
        )
        for number in 1...4 {
            _ = await server.run(
                "mutation { createPost(input: {id: \"p\(number)\", title: \"T\", rating: 1, status: DRAFT}) { id } }"
            )
        }
        #expect(
            try Self.page(await server.json("{ listPosts { items { id } nextToken } }"), "listPosts").ids == [
                "p1", "p2",
            ]
        )
        #expect(
            try Self.page(await server.json("{ listPosts(limit: 5000) { items { id } nextToken } }"), "listPosts").ids
                == ["p1", "p2", "p3"]
        )
    }

    @Test(arguments: [0, -1])
    func aLimitBelowOneIsRefusedAsDynamoDBRefusesIt(limit: Int) async throws {
        let server = try await Self.blog()
        let message =
            "1 validation error detected: Value '\(limit)' at 'limit' failed to satisfy constraint: "
            + "Member must have value greater than or equal to 1 (Service: DynamoDb, Status Code: 400)"
        let queries = [
            ("listPosts", "{ listPosts(limit: \(limit)) { items { id } } }", 3),
            ("syncPosts", "{ syncPosts(limit: \(limit)) { items { id } } }", 3),
            ("postsByBlog", #"{ postsByBlog(blogID: "b1", limit: \#(limit)) { items { id } } }"#, 3),
            ("getBlog", #"{ getBlog(id: "b1") { posts(limit: \#(limit)) { items { id } } } }"#, 23),
        ]
        for (field, query, column) in queries {
            let path = field == "getBlog" ? #"["getBlog","posts"]"# : #"["\#(field)"]"#
            let data = field == "getBlog" ? #"{"getBlog":{"posts":null}}"# : #"{"\#(field)":null}"#
            #expect(
                await server.run(query)
                    == #"{"data":\#(data),"errors":[{"path":\#(path),"data":null,"#
                    + #""errorType":"DynamoDB:DynamoDbException","errorInfo":null,"#
                    + #""locations":[{"line":1,"column":\#(column),"sourceName":null}],"message":"\#(message)"}]}"#,
                "\(query)"
            )
        }
        // The same limit in a variable.
        #expect(
            await server.json(Self.listQuery, ["limit": .int(limit)])["errors"]?[0]?["message"]
                == .string(message)
        )
    }

    @Test func aHundredAndOneItemsMakeTwoDefaultPages() async throws {
        let server = try await Self.posts(101)
        let first = try Self.page(await server.json("{ listPosts { items { id } nextToken } }"), "listPosts")
        #expect(first.ids.count == 100)
        let token = try #require(first.token)
        let second = try Self.page(
            await server.json(Self.listQuery, ["nextToken": .string(token)]),
            "listPosts"
        )
        #expect(second.ids.count == 1)
        #expect(Set(first.ids + second.ids).count == 101)
    }

    // MARK: - Keys, indexes and relations

    static func blog() async throws -> TestServer {
        let server = try await TestServer(blogSchema)
        let setup = """
            mutation {
              s: createSettings(input: {id: "s1", theme: "dark"}) { id }
              b: createBlog(input: {id: "b1", name: "Blog", blogSettingsId: "s1"}) { id }
              p3: createPost(input: {id: "p3", title: "C", blogID: "b1"}) { id }
              p1: createPost(input: {id: "p1", title: "A", blogID: "b1"}) { id }
              p2: createPost(input: {id: "p2", title: "B", blogID: "b1"}) { id }
              p9: createPost(input: {id: "p9", title: "Z", blogID: "b2"}) { id }
              c1: createComment(input: {id: "c1", content: "one", postCommentsId: "p1"}) { id }
              c2: createComment(input: {id: "c2", content: "two", postCommentsId: "p1"}) { id }
              t1: createTag(input: {id: "t1", label: "swift"}) { id }
              pt: createPostTags(input: {id: "pt1", postId: "p1", tagId: "t1"}) { id }
              o1: createOrder(input: {customerId: "c", placedAt: 100, number: 2, total: 1.5}) { number }
              o2: createOrder(input: {customerId: "c", placedAt: 100, number: 1}) { number }
              o3: createOrder(input: {customerId: "c", placedAt: 200, number: 1}) { number }
              o4: createOrder(input: {customerId: "d", placedAt: 50, number: 1}) { number }
            }
            """
        let body = await server.json(setup)
        #expect(body["errors"] == nil, "\(body.text)")
        return server
    }

    @Test func anIndexQueryReadsInSortKeyOrderWithItsKeyCondition() async throws {
        let server = try await Self.blog()
        #expect(
            await server.run(#"{ postsByBlog(blogID: "b1") { items { id title } } }"#)
                == #"{"data":{"postsByBlog":{"items":[{"id":"p1","title":"A"},{"id":"p2","title":"B"},"#
                + #"{"id":"p3","title":"C"}]}}}"#
        )
        #expect(
            await server.run(
                #"{ postsByBlog(blogID: "b1", title: {ge: "B"}, sortDirection: DESC) { items { id } } }"#
            ) == #"{"data":{"postsByBlog":{"items":[{"id":"p3"},{"id":"p2"}]}}}"#
        )
        let between = """
            query Q($nextToken: String) {
              postsByBlog(blogID: "b1", title: {between: ["A", "B"]}, limit: 1, nextToken: $nextToken) {
                items { id } nextToken
              }
            }
            """
        let first = try Self.page(await server.json(between), "postsByBlog")
        #expect(first.ids == ["p1"])
        let second = try Self.page(
            await server.json(between, ["nextToken": .string(try #require(first.token))]),
            "postsByBlog"
        )
        #expect(second.ids == ["p2"])
        #expect(second.token == nil)
    }

    @Test func aCompositeKeyListsByPartitionAndSortKeyConditions() async throws {
        let server = try await Self.blog()
        #expect(
            await server.run(#"{ listOrders(customerId: "c") { items { placedAt number total } } }"#)
                == #"{"data":{"listOrders":{"items":[{"placedAt":100,"number":1,"total":null},"#
                + #"{"placedAt":100,"number":2,"total":1.5},{"placedAt":200,"number":1,"total":null}]}}}"#
        )
        #expect(
            await server.run(
                #"{ listOrders(customerId: "c", placedAtNumber: {gt: {placedAt: 100, number: 1}}, sortDirection: DESC) "#
                    + "{ items { placedAt number } } }"
            )
                == #"{"data":{"listOrders":{"items":[{"placedAt":200,"number":1},{"placedAt":100,"number":2}]}}}"#
        )
        #expect(
            await server.run(
                #"{ listOrders(customerId: "c", placedAtNumber: {eq: {placedAt: 100}}) { items { number } } }"#
            )
                == #"{"data":{"listOrders":{"items":[{"number":1},{"number":2}]}}}"#
        )
        #expect(
            await server.run(#"{ getOrder(customerId: "c", placedAt: 100, number: 2) { total } }"#)
                == #"{"data":{"getOrder":{"total":1.5}}}"#
        )
    }

    @Test func relationFieldsResolveParentsChildrenAndJoins() async throws {
        let server = try await Self.blog()
        let query = """
            {
              getPost(id: "p1") {
                blog { name settings { theme } }
                comments { items { id content post { id } } nextToken }
                tags { items { tag { label } } }
              }
            }
            """
        #expect(
            await server.run(query)
                == #"{"data":{"getPost":{"blog":{"name":"Blog","settings":{"theme":"dark"}},"#
                + #""comments":{"items":[{"id":"c1","content":"one","post":{"id":"p1"}},"#
                + #"{"id":"c2","content":"two","post":{"id":"p1"}}],"nextToken":null},"#
                + #""tags":{"items":[{"tag":{"label":"swift"}}]}}}}"#
        )
    }

    @Test func aHasManyFieldFiltersSortsAndPages() async throws {
        let server = try await Self.blog()
        let query = """
            query Q($nextToken: String) {
              getBlog(id: "b1") {
                posts(filter: {title: {ne: "B"}}, sortDirection: DESC, limit: 2, nextToken: $nextToken) {
                  items { id } nextToken
                }
              }
            }
            """
        let first = await server.json(query)
        let connection = try #require(first["data"]?["getBlog"]?["posts"])
        #expect(connection["items"] == [["id": "p3"]])
        let token = try #require(connection["nextToken"]?.stringValue)
        #expect(
            await server.run(query, ["nextToken": .string(token)])
                == #"{"data":{"getBlog":{"posts":{"items":[{"id":"p1"}],"nextToken":null}}}}"#
        )
        #expect(
            await server.run(#"{ getBlog(id: "b1") { posts(title: {beginsWith: "C"}) { items { id } } } }"#)
                == #"{"data":{"getBlog":{"posts":{"items":[{"id":"p3"}]}}}}"#
        )
    }
}
