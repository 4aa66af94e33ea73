import Foundation
import StratusServer
import Testing

@testable import StratusServer

/// Mutations answered without the executor give the same bytes, and leave the same data, as the
/// executor: two servers from the same start, one answering directly where it can, get the same
/// mutations in the same order.
@Suite struct DirectMutationsTests {
    static let sampleFields = """
        id text count ratio flag day time moment stamp email json phone url ip tags scores kind
        address { street city { name zip __typename } __typename }
        addresses { street city { zip } }
        __typename _version _deleted _lastChangedAt
        """

    static let create = """
        mutation C($input: CreateSampleInput!, $condition: ModelSampleConditionInput) {
          createSample(input: $input, condition: $condition) { \(sampleFields) }
        }
        """
    static let update = """
        mutation U($input: UpdateSampleInput!, $condition: ModelSampleConditionInput) {
          updateSample(input: $input, condition: $condition) { id count ratio tags kind _version }
        }
        """
    static let delete = """
        mutation D($input: DeleteSampleInput!) { deleteSample(input: $input) { id text _version _deleted } }
        """

    static let full: JSONObject = [
        "id": "s1", "text": "alpha", "count": 1, "ratio": 1.5, "flag": true, "day": "2024-02-29",
        "time": "12:30:00.5Z", "moment": "2024-02-29T12:30:00.123+01:00", "stamp": 1_700_000_000,
        "email": "a@example.com", "json": #"{"b":[1,2.5,null],"a":"x"}"#, "phone": "+1 555 0100",
        "url": "https://example.com/a?b=c", "ip": "10.0.0.1", "tags": ["x", "y"], "scores": [3, 1], "kind": "A",
        "address": ["street": "Main", "city": ["name": "Springfield", "zip": 12345]],
        "addresses": [["street": "One"], ["street": "Two", "city": ["name": "Shelbyville"]]],
    ]

    /// Each mutation, its variables, who sends it, and whether the direct path answers it.
    static let mutations: [(query: String, variables: JSONObject, identity: Int, direct: Bool)] = [
        (create, ["input": .object(full)], 0, true),
        // Coercions: an integer Float, an integer ID, a single value for a list, input fields in
        // another order than their type's, an explicit null.
        (create, ["input": ["ratio": 2, "kind": "B", "tags": "solo", "scores": 4, "text": .null, "id": 7]], 0, true),
        (create, ["input": ["id": "s3", "text": "gamma", "count": 3]], 0, true),
        // Errors: the item exists; the condition fails; an unknown input field; a bad scalar.
        (create, ["input": ["id": "s1"]], 0, true),
        (create, ["input": ["id": "s4", "count": 1], "condition": ["count": ["gt": 5]]], 0, true),
        (create, ["input": ["id": "s5", "colour": "red"]], 0, false),
        (create, ["input": ["id": "s6", "email": "not an address"]], 0, false),
        (create, ["input": ["id": "s7", "count": 1.5]], 0, false),
        (create, ["input": ["id": "s13", "count": 2.0]], 0, true),
        (update, ["input": ["id": "s1", "count": 2, "_version": 1], "condition": ["count": ["eq": 1]]], 0, true),
        (update, ["input": ["id": "s1", "count": 3, "_version": 2], "condition": ["count": ["eq": 1]]], 0, true),
        (update, ["input": ["id": "missing", "count": 3, "_version": 1]], 0, true),
        (update, ["input": ["id": "s3", "ratio": 0.25, "tags": ["p", "q"], "_version": 1]], 0, true),
        // Automerge of a stale version.
        (update, ["input": ["id": "s3", "count": 9, "_version": 1]], 0, true),
        (delete, ["input": ["id": "7", "_version": 1]], 0, true),
        (delete, ["input": ["id": "7", "_version": 2]], 0, true),
        // Aliases, a repeated key, a fragment, two root fields, a literal, a default: the
        // first directly, the rest through the executor.
        (
            #"mutation M($i: CreateSampleInput!) { made: createSample(input: $i) { key: id t: text __typename } }"#,
            ["i": ["id": "s8", "text": "eta"]], 0, true
        ),
        (
            #"mutation M($i: CreateSampleInput!) { createSample(input: $i) { id id } }"#,
            ["i": ["id": "s9"]], 0, false
        ),
        (
            #"mutation M($i: CreateSampleInput!) { createSample(input: $i) { id ... on Sample { text } } }"#,
            ["i": ["id": "s10", "text": "x"]], 0, false
        ),
        (#"mutation { createSample(input: {id: "s11"}) { id } }"#, [:], 0, false),
        (
            #"mutation M($i: CreateSampleInput = {id: "s12"}) { createSample(input: $i) { id } }"#,
            [:], 0, false
        ),
        // Group rules: a writer they admit, and one they do not (whom the executor refuses).
        (
            #"mutation M($i: CreateDocInput!) { createDoc(input: $i) { id title editors } }"#,
            ["i": ["id": "d1", "title": "T", "editors": ["Writers"]]], 1, true
        ),
        (
            #"mutation M($i: CreateDocInput!) { createDoc(input: $i) { id title editors } }"#,
            ["i": ["id": "d2", "title": "T", "editors": ["Writers"]]], 2, false
        ),
        (
            #"mutation M($i: UpdateDocInput!) { updateDoc(input: $i) { id title } }"#,
            ["i": ["id": "d1", "title": "U", "_version": 1]], 1, true
        ),
    ]

    /// The API key, a user in the `Writers` group, and a user in none (those of the reads' test).
    static let identities = DirectReadsTests.identities

    static let schema = DirectReadsTests.schema.replacingOccurrences(
        of: #"{ allow: public, provider: iam }"#,
        with: #"{ allow: public, provider: iam }, "#
            + #"{ allow: groups, groups: ["Writers"], operations: [create, update, read] }"#
    )

    /// Runs a mutation on `direct`, which may answer it directly, and on `executed`, through the
    /// executor; with whether `direct` answered it directly.
    static func runOnBoth(
        _ direct: TestServer,
        _ executed: TestServer,
        _ query: String,
        _ variables: JSONObject,
        identity: Identity = .apiKey
    ) async -> (direct: ServerResponse, executed: ServerResponse, answeredDirectly: Bool) {
        let (viaDirect, answered) = await direct.server.execute(
            query: query,
            variables: variables,
            operationName: nil,
            identity: identity,
            direct: true
        )
        let (viaExecutor, _) = await executed.server.execute(
            query: query,
            variables: variables,
            operationName: nil,
            identity: identity,
            direct: false
        )
        return (viaDirect, viaExecutor, answered)
    }

    @Test func directAnswersEqualTheExecutors() async throws {
        let direct = try await TestServer(Self.schema)
        let executed = try await TestServer(Self.schema)
        var answeredDirectly: [Int] = []
        for (index, mutation) in Self.mutations.enumerated() {
            let identity = Self.identities[mutation.identity]
            let (viaDirect, viaExecutor, answered) = await Self.runOnBoth(
                direct,
                executed,
                mutation.query,
                mutation.variables,
                identity: identity
            )
            #expect(viaDirect.text == viaExecutor.text, "mutation \(index): \(mutation.query) \(mutation.variables)")
            if answered { answeredDirectly.append(index) }
        }
        let expected = Self.mutations.indices.filter { Self.mutations[$0].direct }
        #expect(answeredDirectly == expected)
        // The same data and the same journal afterwards.
        for query in [
            "{ listSamples { items { \(Self.sampleFields) } } }",
            "{ syncSamples { items { id _version _deleted _lastChangedAt } } }",
            "{ listDocs { items { id title editors _version } } }",
        ] {
            let left = await direct.run(query, identity: Self.identities[1])
            let right = await executed.run(query, identity: Self.identities[1])
            #expect(left == right, "\(query)")
            #expect(!left.contains("errors"), "\(left)")
        }
    }

    @Test func aConflictUnderOptimisticConcurrencyIsWrittenAsTheExecutorWritesIt() async throws {
        var configuration = ServerConfiguration()
        configuration.conflictResolution = .optimisticConcurrency
        let direct = try await TestServer(Self.schema, configuration: configuration)
        let executed = try await TestServer(Self.schema, configuration: configuration)
        let steps: [(String, JSONObject)] = [
            (Self.create, ["input": ["id": "s1", "count": 1]]),
            (Self.update, ["input": ["id": "s1", "count": 2, "_version": 1]]),
            (Self.update, ["input": ["id": "s1", "count": 3, "_version": 1]]),
            (Self.delete, ["input": ["id": "s1", "_version": 1]]),
        ]
        var answered = 0
        for (query, variables) in steps {
            let (viaDirect, viaExecutor, wasDirect) = await Self.runOnBoth(direct, executed, query, variables)
            #expect(viaDirect.text == viaExecutor.text)
            if wasDirect { answered += 1 }
        }
        #expect(answered == steps.count)
        let conflict = await direct.json(Self.update, ["input": ["id": "s1", "count": 4, "_version": 1]])
        #expect(conflict["errors"]?[0]?["errorType"] == "ConflictUnhandled")
        #expect(conflict["errors"]?[0]?["data"]?["count"] == 2)
    }
}
