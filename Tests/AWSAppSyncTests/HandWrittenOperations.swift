import AWSAppSync

// Operations written by hand in the shape `stratus codegen types` generates, so the runtime is
// tested on its own.

enum Status: RawRepresentable, Equatable, Hashable, Sendable, JSONDecodable, JSONEncodable {
    typealias RawValue = String
    case active
    case archived
    case unknown(RawValue)

    init?(rawValue: RawValue) {
        switch rawValue {
        case "ACTIVE": self = .active
        case "ARCHIVED": self = .archived
        default: self = .unknown(rawValue)
        }
    }

    var rawValue: RawValue {
        switch self {
        case .active: return "ACTIVE"
        case .archived: return "ARCHIVED"
        case .unknown(let value): return value
        }
    }
}

struct NoteInput: GraphQLMapConvertible {
    var graphQLMap: GraphQLMap

    init(id: GraphQLID? = nil, title: String, tags: [String?]? = nil) {
        graphQLMap = GraphQLMap(omittingNil: ["id": id?.jsonValue, "title": title.jsonValue, "tags": tags?.jsonValue])
    }

    init(graphQLMap: GraphQLMap) {
        self.graphQLMap = graphQLMap
    }

    var id: GraphQLID? {
        get { graphQLMap[input: "id"] }
        set { graphQLMap[input: "id"] = newValue }
    }

    var title: String {
        get { graphQLMap[input: "title"] }
        set { graphQLMap[input: "title"] = newValue }
    }
}

struct NoteFields: GraphQLFragment {
    static let fragmentDefinition = "fragment NoteFields on Note {\n  __typename\n  status\n}"
    static let possibleTypes = ["Note"]
    static let selections: [any GraphQLSelection] = [
        GraphQLField("__typename", type: .nonNull(.scalar(String.self))),
        GraphQLField("status", type: .scalar(Status.self)),
    ]
    var snapshot: Snapshot

    init(snapshot: Snapshot) {
        self.snapshot = snapshot
    }

    var status: Status? {
        get { snapshot[field: "status"] }
        set { snapshot[field: "status"] = newValue }
    }
}

struct ListNotesQuery: GraphQLQuery {
    static let operationName = "ListNotes"
    static let operationString = "query ListNotes($limit: Int, $withTags: Boolean!) { … }"

    var limit: Int?
    var withTags: Bool

    init(limit: Int? = nil, withTags: Bool) {
        self.limit = limit
        self.withTags = withTags
    }

    var variables: GraphQLMap? {
        GraphQLMap(omittingNil: ["limit": limit?.jsonValue, "withTags": withTags.jsonValue])
    }

    struct Data: GraphQLSelectionSet {
        static let possibleTypes = ["Query"]
        static let selections: [any GraphQLSelection] = [
            GraphQLField(
                "listNotes",
                arguments: ["limit": GraphQLVariable("limit")],
                type: .object(ListNote.selections)
            )
        ]
        var snapshot: Snapshot

        init(snapshot: Snapshot) {
            self.snapshot = snapshot
        }

        init(listNotes: ListNote? = nil) {
            self.init(snapshot: ["listNotes": listNotes.jsonValue])
        }

        var listNotes: ListNote? {
            get { snapshot[field: "listNotes"] }
            set { snapshot[field: "listNotes"] = newValue }
        }

        struct ListNote: GraphQLSelectionSet {
            static let possibleTypes = ["ModelNoteConnection"]
            static let selections: [any GraphQLSelection] = [
                GraphQLField("__typename", type: .nonNull(.scalar(String.self))),
                GraphQLField("items", type: .nonNull(.list(.object(Item.selections)))),
                GraphQLField("nextToken", type: .scalar(String.self)),
            ]
            var snapshot: Snapshot

            init(snapshot: Snapshot) {
                self.snapshot = snapshot
            }

            init(items: [Item?], nextToken: String? = nil) {
                self.init(
                    snapshot: [
                        "__typename": "ModelNoteConnection", "items": items.jsonValue, "nextToken": nextToken.jsonValue,
                    ]
                )
            }

            var items: [Item?] {
                get { snapshot[field: "items"] }
                set { snapshot[field: "items"] = newValue }
            }

            var nextToken: String? {
                get { snapshot[field: "nextToken"] }
                set { snapshot[field: "nextToken"] = newValue }
            }

            struct Item: GraphQLSelectionSet {
                static let possibleTypes = ["Note"]
                static let selections: [any GraphQLSelection] = [
                    GraphQLField("__typename", type: .nonNull(.scalar(String.self))),
                    GraphQLField("id", type: .nonNull(.scalar(GraphQLID.self))),
                    GraphQLField("title", alias: "heading", type: .nonNull(.scalar(String.self))),
                    GraphQLField("rating", type: .scalar(Double.self)),
                    GraphQLBooleanCondition(
                        variableName: "withTags",
                        inverted: false,
                        selections: [GraphQLField("tags", type: .list(.scalar(String.self)))]
                    ),
                    GraphQLFragmentSpread(NoteFields.self),
                ]
                var snapshot: Snapshot

                init(snapshot: Snapshot) {
                    self.snapshot = snapshot
                }

                init(
                    id: GraphQLID,
                    heading: String,
                    rating: Double? = nil,
                    tags: [String?]? = nil,
                    status: Status? = nil
                ) {
                    self.init(
                        snapshot: [
                            "__typename": "Note", "id": id.jsonValue, "heading": heading.jsonValue,
                            "rating": rating.jsonValue, "tags": tags.jsonValue, "status": status.jsonValue,
                        ]
                    )
                }

                var id: GraphQLID {
                    get { snapshot[field: "id"] }
                    set { snapshot[field: "id"] = newValue }
                }

                var heading: String {
                    get { snapshot[field: "heading"] }
                    set { snapshot[field: "heading"] = newValue }
                }

                var rating: Double? {
                    get { snapshot[field: "rating"] }
                    set { snapshot[field: "rating"] = newValue }
                }

                var tags: [String?]? {
                    get { snapshot[field: "tags"] }
                    set { snapshot[field: "tags"] = newValue }
                }

                var fragments: Fragments {
                    get { Fragments(snapshot: snapshot) }
                    set { snapshot.merge(newValue.snapshot) { $1 } }
                }

                struct Fragments {
                    var snapshot: Snapshot

                    var noteFields: NoteFields {
                        get { NoteFields(snapshot: snapshot) }
                        set { snapshot.merge(newValue.snapshot) { $1 } }
                    }
                }
            }
        }
    }
}
