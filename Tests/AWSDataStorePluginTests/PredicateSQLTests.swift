import Amplify
import BlogModels
import Foundation
import GRDB
import Testing

@testable import AWSDataStorePlugin

/// Predicates translate to parameterized SQL that selects what the in-memory evaluator selects.
@Suite struct PredicateSQLTests {
    let table: ModelTable
    let conditions = InMemoryConditions()

    init() throws {
        table = try ModelCatalog(modelTypes: ModelRegistry.modelTypes(registeredBy: BlogRegistration())).tables["Post"]!
    }

    func translate(_ predicate: any QueryPredicate) throws -> SQLCondition {
        try SQLCondition(predicate, table: table, conditions: conditions)
    }

    @Test func comparisonsBindTheirValues() throws {
        let p = BlogPost.keys
        let condition = try translate(p.rating > 4 || p.title.beginsWith("[Amplify]"))
        #expect(
            condition.sql
                == #"(("rating" IS NOT NULL AND "rating" > ?) OR ("title" IS NOT NULL AND "title" >= ? AND instr("title", ?) = 1))"#
        )
        #expect(condition.arguments == [4.databaseValue, "[Amplify]".databaseValue, "[Amplify]".databaseValue])
    }

    @Test func everyOperatorHasItsSQL() throws {
        let p = BlogPost.keys
        let cases: [(any QueryPredicate, String)] = [
            (p.title == "a", #""title" IS ?"#),
            (p.title != "a", #""title" IS NOT ?"#),
            (p.title < "a", #"("title" IS NOT NULL AND "title" < ?)"#),
            (p.title <= "a", #"("title" IS NOT NULL AND "title" <= ?)"#),
            (p.title > "a", #"("title" IS NOT NULL AND "title" > ?)"#),
            (p.title >= "a", #"("title" IS NOT NULL AND "title" >= ?)"#),
            (p.rating.between(start: 1, end: 5), #"("rating" IS NOT NULL AND "rating" BETWEEN ? AND ?)"#),
            (p.title.contains("a"), #"("title" IS NOT NULL AND instr("title", ?) > 0)"#),
            (p.title.notContains("a"), #"("title" IS NULL OR instr("title", ?) = 0)"#),
            (p.status == nil, #""status" IS NULL"#),
            (p.status != nil, #""status" IS NOT NULL"#),
            (p.score.attributeExists(true), #""score" IS NOT NULL"#),
            (
                p.keywords.contains("swift"),
                #"(EXISTS (SELECT 1 FROM json_each("keywords") WHERE value = ?) AND stratus_matches(?, "keywords", "id") = 1)"#
            ),
            (
                p.keywords.notContains("swift"),
                #"NOT (EXISTS (SELECT 1 FROM json_each("keywords") WHERE value = ?) AND stratus_matches(?, "keywords", "id") = 1)"#
            ),
            (p.published == true, #""published" IS ?"#),
            (p.blog == "b1", #""blogID" IS ?"#),
            (p.publishedAt > Temporal.DateTime.now(), #"stratus_matches(?, "publishedAt", "id") = 1"#),
            (
                QueryPredicateOperation(field: "locations", operator: .contains(["latitude": 0, "longitude": 0])),
                #"stratus_matches(?, "locations", "id") = 1"#
            ),
            (not(p.rating > 4), #"NOT (("rating" IS NOT NULL AND "rating" > ?))"#),
            (QueryPredicateConstant.all, "1"),
            (QueryPredicateGroup(type: .or), "0"),
        ]
        for (predicate, sql) in cases {
            let condition = try translate(predicate)
            #expect(condition.sql == sql, "\(predicate)")
            conditions.release(condition.tokens)
        }
        #expect(conditions.count == 0)
    }

    @Test func foreignKeysCompareByTheirStoredType() throws {
        let mismatched = try translate(QueryPredicateOperation(field: "blog", operator: .equals(.integer(1))))
        #expect(mismatched.sql == "0")
        let notEqual = try translate(QueryPredicateOperation(field: "blog", operator: .notEqual(.integer(1))))
        #expect(notEqual.sql == "1")
    }

    @Test func invalidPredicatesAreRefusedWithTheEvaluatorsMessage() throws {
        let error = #expect(throws: DataStoreError.self) {
            _ = try translate(BlogPost.keys.published > true)
        }
        #expect(error?.code == .invalidCondition)
        #expect(error?.message == "'gt' does not apply to Post.published (Bool). Use eq, ne or attributeExists.")
        let mismatch = #expect(throws: DataStoreError.self) {
            _ = try translate(BlogPost.keys.rating == "4")
        }
        #expect(
            mismatch?.message
                == "Post.rating (Int) cannot be compared with \"4\", a string. Use an Int or a Double."
        )
    }
}

/// A query selects exactly the records the in-memory evaluator selects, for random records and
/// random predicates over every kind of field.
@Suite struct PredicateAgreementTests {
    @Test(arguments: [1, 2, 3])
    func sqlAgreesWithTheInMemoryEvaluator(seed: UInt64) async throws {
        var random = SplitMix64(seed: seed)
        let store = try TestStore()
        let blogs = ["b1", "b2", "é"]
        for id in blogs { try await store.plugin.save(Fixtures.blog(id)) }
        var records: [(id: String, json: JSONValue)] = []
        for index in 0..<150 {
            let post = RandomValues.post(id: "p\(index)", blogs: blogs, using: &random)
            try await store.plugin.save(post)
            records.append((post.id, try post.jsonValue()))
        }
        let schema = BlogPost.schema
        let engine = try store.engine
        let table = engine.catalog.tables["Post"]!
        var checked = 0
        for round in 0..<400 {
            let predicate = RandomValues.predicate(depth: 0, using: &random)
            let expected: [String]
            do {
                expected = try records.filter { try predicate.evaluate(target: $0.json, schema: schema) }.map(\.id)
            } catch {
                await #expect(throws: DataStoreError.self, "\(predicate)") {
                    _ = try await store.plugin.query(BlogPost.self, where: predicate)
                }
                continue
            }
            let selected: [String]
            if round % 20 == 0 {
                selected = try await store.plugin.query(BlogPost.self, where: predicate).map(\.id)
            } else {
                let query = try SQLQuery(
                    table: table,
                    selection: #""id""#,
                    predicate: predicate,
                    sort: nil,
                    pagination: nil,
                    conditions: engine.conditions
                )
                defer { engine.conditions.release(query.tokens) }
                selected = try await engine.pool.read { db in
                    try String.fetchAll(db, sql: query.sql, arguments: StatementArguments(query.arguments))
                }
            }
            #expect(selected == expected, "\(predicate)")
            checked += 1
        }
        #expect(checked > 300)
        #expect(try store.engine.conditions.count == 0)
    }
}

/// A small deterministic random number generator, so that a failure replays.
struct SplitMix64: RandomNumberGenerator {
    var state: UInt64

    init(seed: UInt64) { state = seed }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

/// Random field values and predicates that exercise the edges of each comparison.
enum RandomValues {
    static let strings = [
        "", "a", "A", "Z", "ab", "abc", "b", "é", "e\u{301}", "ö", "🙂", "a🙂", "%", "_", "a_b", "[Amplify] x",
        "Zebra", "zebra", "10", "9", "#", "b1", "b2",
    ]
    static let integers = [0, 1, -1, 2, 3, 4, 5, 42, -42, Int(Int32.max), 9_007_199_254_740_993, Int.max, Int.min]
    static let doubles = [0.0, -0.0, 0.5, 1.0, 2.5, 3.0, -1.5, 9_007_199_254_740_992.0, 1e300, -1e300, 4.25]
    static let dates = [
        "2024-01-01", "2024-01-02", "2023-12-31", "2024-01-01Z", "2024-01-01+01:00", "2024-01-01-05:00",
    ]
    static let dateTimes = [
        "2024-01-02T03:00:00Z", "2024-01-02T04:00:00+01:00", "2024-01-02T03:00:00.5Z", "2024-01-02T03:00:00.500Z",
        "2024-01-01T23:59:59Z", "2024-01-02T03:00:00-00:30", "1999-12-31T23:59:59.999999999Z",
    ]
    static let times = [
        "12:00:00", "12:00:00.5", "12:00:00.500", "11:00:00Z", "12:00:00+01:00", "00:00:00", "23:59:59",
    ]

    static func pick<T>(_ values: [T], _ random: inout SplitMix64) -> T {
        values[Int(random.next() % UInt64(values.count))]
    }

    static func maybe<T>(_ random: inout SplitMix64, _ value: (inout SplitMix64) -> T) -> T? {
        random.next() % 4 == 0 ? nil : value(&random)
    }

    static func list<T>(_ random: inout SplitMix64, count: UInt64, _ value: (inout SplitMix64) -> T) -> [T] {
        (0..<Int(random.next() % count)).map { _ in value(&random) }
    }

    static func post(id: String, blogs: [String], using random: inout SplitMix64) -> BlogPost {
        let title = pick(strings, &random)
        let blog = pick(blogs, &random)
        let status = pick(PostStatus.allCases, &random)
        let rating = maybe(&random) { pick(integers, &$0) }
        var post = BlogPost(id: id, title: title, blog: Blog(id: blog, name: "x"), status: status, rating: rating)
        post.score = maybe(&random) { pick(doubles, &$0) }
        post.published = maybe(&random) { $0.next() % 2 == 0 }
        post.publishedOn = maybe(&random) { try! Temporal.Date(iso8601String: pick(dates, &$0)) }
        post.publishedAt = maybe(&random) { try! Temporal.DateTime(iso8601String: pick(dateTimes, &$0)) }
        post.reminderTime = maybe(&random) { try! Temporal.Time(iso8601String: pick(times, &$0)) }
        post.expiresAt = maybe(&random) { pick(integers, &$0) }
        post.contactEmail = maybe(&random) { pick(strings, &$0) }
        post.keywords = maybe(&random) { random in list(&random, count: 4) { pick(strings, &$0) } }
        post.ratings = maybe(&random) { random in
            list(&random, count: 4) { $0.next() % 5 == 0 ? nil : pick(integers, &$0) }
        }
        post.statusHistory = maybe(&random) { random in list(&random, count: 3) { pick(PostStatus.allCases, &$0) } }
        post.locations = maybe(&random) { random in
            list(&random, count: 3) { random in
                let latitude = pick([0.0, 1.5, 2.0], &random)
                return GeoPoint(latitude: latitude, longitude: pick([0.0, -2.0], &random))
            }
        }
        return post
    }

    /// A field, and the operand values that compare with it.
    enum FieldKind {
        case string, number, boolean, date, dateTime, time, stringList, numberList, enumList, objectList, object,
            foreignKey
    }

    static let fields: [(String, FieldKind)] = [
        ("id", .string), ("title", .string), ("contactEmail", .string), ("status", .string), ("blogID", .string),
        ("rating", .number), ("score", .number), ("expiresAt", .number), ("published", .boolean),
        ("publishedOn", .date), ("publishedAt", .dateTime), ("reminderTime", .time), ("keywords", .stringList),
        ("ratings", .numberList), ("statusHistory", .enumList), ("locations", .objectList), ("blog", .foreignKey),
    ]

    static func operand(_ kind: FieldKind, _ random: inout SplitMix64) -> JSONValue {
        switch kind {
        case .string, .stringList: return .string(pick(strings + ["DRAFT", "PUBLISHED", "IN_REVIEW"], &random))
        case .enumList: return .string(pick(["DRAFT", "PUBLISHED", "IN_REVIEW", "x"], &random))
        case .number, .numberList:
            if random.next() % 2 == 0 { return .integer(pick(integers, &random)) }
            return .number(pick(doubles + [.nan], &random))
        case .boolean: return .boolean(random.next() % 2 == 0)
        case .date: return .string(pick(dates + ["not a date"], &random))
        case .dateTime: return .string(pick(dateTimes + ["2024"], &random))
        case .time: return .string(pick(times + ["noon"], &random))
        case .objectList, .object:
            let latitude = pick([0.0, 1.5, 2.0], &random)
            return .object(["latitude": .number(latitude), "longitude": .number(pick([0.0, -2.0], &random))])
        case .foreignKey:
            if random.next() % 4 == 0 { return .integer(1) }
            return .string(pick(["b1", "b2", "é", "b", "2", ""], &random))
        }
    }

    static func predicate(depth: Int, using random: inout SplitMix64) -> any QueryPredicate {
        if depth < 2, random.next() % 3 == 0 {
            var members: [any QueryPredicate] = []
            for _ in 0..<(1 + random.next() % 3) { members.append(predicate(depth: depth + 1, using: &random)) }
            return QueryPredicateGroup(type: pick(QueryPredicateGroupType.allCases, &random), predicates: members)
        }
        let (name, kind) = pick(fields, &random)
        let value = operand(kind, &random)
        let other = operand(kind, &random)
        let exists = random.next() % 2 == 0
        let operators: [QueryOperator]
        switch kind {
        case .string, .date, .dateTime, .time, .foreignKey:
            let text = value.stringValue ?? "b"
            operators = [
                .equals(value), .notEqual(value), .lessThan(value), .lessOrEqual(value), .greaterThan(value),
                .greaterOrEqual(value), .between(start: value, end: other), .beginsWith(String(text.prefix(2))),
                .contains(.string(String(text.suffix(1)))), .notContains(.string(String(text.prefix(1)))),
                .equals(.null), .notEqual(.null), .attributeExists(exists),
            ]
        case .number:
            operators = [
                .equals(value), .notEqual(value), .lessThan(value), .lessOrEqual(value), .greaterThan(value),
                .greaterOrEqual(value), .between(start: value, end: other), .equals(.null), .notEqual(.null),
                .attributeExists(exists),
            ]
        case .boolean, .object:
            operators = [.equals(value), .notEqual(value), .equals(.null), .attributeExists(exists)]
        case .stringList, .numberList, .enumList, .objectList:
            operators = [
                .contains(value), .notContains(value), .equals(.array([value])), .notEqual(.array([])),
                .equals(.null), .attributeExists(exists),
            ]
        }
        return QueryPredicateOperation(field: name, operator: pick(operators, &random))
    }
}
