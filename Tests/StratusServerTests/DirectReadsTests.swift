import Foundation
import Testing

@testable import StratusServer

/// List, sync and index queries answered without the executor give the same bytes as the
/// executor, for every kind of field, aliases, pages, filters and auth rules.
@Suite struct DirectReadsTests {
    static let schema = """
        type Sample @model {
          id: ID!
          text: String @index(name: "byText", queryField: "samplesByText")
          count: Int
          ratio: Float
          flag: Boolean
          day: AWSDate
          time: AWSTime
          moment: AWSDateTime
          stamp: AWSTimestamp
          email: AWSEmail
          json: AWSJSON
          phone: AWSPhone
          url: AWSURL
          ip: AWSIPAddress
          tags: [String]
          scores: [Int!]
          kind: Kind
          address: Address
          addresses: [Address]
        }

        enum Kind {
          A
          B
        }

        type Address {
          street: String
          city: City
        }

        type City {
          name: String
          zip: Int
        }

        type Doc @model @auth(rules: [{ allow: groups, groupsField: "editors" }, { allow: public, provider: iam }]) {
          id: ID!
          title: String!
          editors: [String]
        }
        """

    static let samples = [
        #"{id: "s1", text: "alpha", count: 1, ratio: 1.0, flag: true, day: "2024-02-29", time: "12:30:00.5Z", moment: "2024-02-29T12:30:00.123+01:00", stamp: 1700000000, email: "a@example.com", json: "{\"b\":[1,2.5,null],\"a\":\"x\"}", phone: "+1 555 0100", url: "https://example.com/a?b=c", ip: "10.0.0.1", tags: ["x", "y"], scores: [3, 1], kind: A, address: {street: "Main", city: {name: "Springfield", zip: 12345}}, addresses: [{street: "One"}, {street: "Two", city: {name: "Shelbyville"}}]}"#,
        #"{id: "s2", text: "beta", count: -7, ratio: 2.5, flag: false, kind: B, tags: []}"#,
        #"{id: "s3", text: "alpha", ratio: 0.1, json: "[1,2]", scores: []}"#,
        #"{id: "s4"}"#,
        #"{id: "s5", text: "gamma", count: 2147483647, ratio: -1e-7, address: {city: {zip: 0}}}"#,
    ]

    static let everything = """
        id text count ratio flag day time moment stamp email json phone url ip tags scores kind
        address { street city { name zip __typename } __typename }
        addresses { street city { zip } }
        __typename _version _deleted _lastChangedAt
        """

    static let queries: [(String, JSONObject)] = [
        ("{ listSamples { items { \(everything) } nextToken startedAt __typename } }", [:]),
        ("{ l: listSamples(limit: 2) { n: nextToken i: items { ident: id t: text id } } }", [:]),
        (
            "query Q($f: ModelSampleFilterInput, $l: Int) { listSamples(filter: $f, limit: $l) { items { id count } nextToken } }",
            ["f": ["count": ["gt": 0]], "l": 3]
        ),
        (#"{ listSamples(filter: {or: [{text: {eq: "beta"}}, {kind: {eq: A}}]}) { items { id kind } } }"#, [:]),
        ("{ syncSamples(limit: 2) { items { id _version _deleted } nextToken startedAt } }", [:]),
        ("{ syncSamples(lastSync: 1) { items { id text } startedAt } }", [:]),
        (#"{ samplesByText(text: "alpha", sortDirection: DESC) { items { id text } nextToken } }"#, [:]),
        ("{ listDocs { items { id title editors } } }", [:]),
        ("{ syncDocs { items { id } } }", [:]),
        ("{ listSamples(nextToken: \"garbage\") { items { id } } }", [:]),
        ("{ listSamples { items { id } } listDocs { items { id } } }", [:]),
        ("{ listSamples { items { id id text address { street } address { city { name } } } } }", [:]),
        ("{ listSamples { items { id ... on Sample { text } } } }", [:]),
    ]

    static let identities: [Identity] = [
        .apiKey,
        Identity(
            authorizationMode: .amazonCognitoUserPools,
            claims: ["sub": "u1", "cognito:username": "u", "cognito:groups": ["Writers"]]
        ),
        Identity(authorizationMode: .amazonCognitoUserPools, claims: ["sub": "u2", "cognito:username": "v"]),
        Identity(authorizationMode: .awsIAM, claims: ["accessKeyId": "AKID"]),
    ]

    @Test func directAnswersEqualTheExecutors() async throws {
        let server = try await TestServer(Self.schema)
        for sample in Self.samples {
            let body = await server.run("mutation { createSample(input: \(sample)) { id } }")
            try #require(!body.contains("errors"), "\(body)")
        }
        let writer = Self.identities[1]
        for (id, editors) in [("d1", #"["Writers"]"#), ("d2", #"["Readers"]"#)] {
            _ = await server.run(
                #"mutation { createDoc(input: {id: "\#(id)", title: "T", editors: \#(editors)}) { id } }"#,
                identity: Self.identities[3]
            )
        }
        _ = await server.run(#"mutation { updateSample(input: {id: "s2", count: 5, _version: 1}) { id } }"#)
        _ = await server.run(#"mutation { deleteSample(input: {id: "s4", _version: 1}) { id } }"#)
        var compared = 0
        var answeredDirectly = 0
        for (query, variables) in Self.queries {
            for identity in Self.identities {
                let (direct, answered) = await server.server.execute(
                    query: query,
                    variables: variables,
                    operationName: nil,
                    identity: identity,
                    direct: true
                )
                if answered { answeredDirectly += 1 }
                let (executed, _) = await server.server.execute(
                    query: query,
                    variables: variables,
                    operationName: nil,
                    identity: identity,
                    direct: false
                )
                #expect(direct.text == executed.text, "\(query) as \(identity.authorizationMode)")
                compared += 1
            }
        }
        #expect(compared == Self.queries.count * Self.identities.count)
        // Samples' reads for API key, IAM and users (no rules), Docs' for IAM and the writer;
        // never the bad token, the two-field query, a repeated response key or a fragment.
        #expect(answeredDirectly == 7 * 4 + 2 * 2, "answered directly: \(answeredDirectly)")
        let page = await server.run("{ listDocs { items { id } } }", identity: writer)
        #expect(page == #"{"data":{"listDocs":{"items":[{"id":"d1"}]}}}"#)
    }
}
