import Testing

/// What the generated operations select: field order, associations by depth, embedded types.
struct StatementsSelectionSetTests {
    @Test func maxDepthOneSelectsNoAssociations() throws {
        let statements = try GeneratedStatements(fixture: "statements-blog", maxDepth: 1)
        #expect(
            statements.operation("GetPost") == """
                query GetPost($id: ID!) {
                  getPost(id: $id) {
                    id
                    createdAt
                    rating
                    status
                    title
                    updatedAt
                    __typename
                    _version
                    _deleted
                    _lastChangedAt
                  }
                }
                """
        )
    }

    @Test func maxDepthTwoSelectsOneLevelOfAssociations() throws {
        let statements = try GeneratedStatements(fixture: "statements-blog", maxDepth: 2)
        #expect(
            statements.operation("GetPost") == """
                query GetPost($id: ID!) {
                  getPost(id: $id) {
                    id
                    createdAt
                    rating
                    status
                    title
                    updatedAt
                    comments {
                      items {
                        id
                        content
                        createdAt
                        postCommentsId
                        updatedAt
                        __typename
                        _version
                        _deleted
                        _lastChangedAt
                      }
                      nextToken
                    }
                    __typename
                    _version
                    _deleted
                    _lastChangedAt
                  }
                }
                """
        )
    }

    @Test func maxDepthThreeSelectsTheAssociationsOfAssociations() throws {
        let statements = try GeneratedStatements(fixture: "statements-blog", maxDepth: 3)
        #expect(
            statements.operation("GetPost") == """
                query GetPost($id: ID!) {
                  getPost(id: $id) {
                    id
                    createdAt
                    rating
                    status
                    title
                    updatedAt
                    comments {
                      items {
                        id
                        content
                        createdAt
                        postCommentsId
                        updatedAt
                        post {
                          id
                          createdAt
                          rating
                          status
                          title
                          updatedAt
                          __typename
                          _version
                          _deleted
                          _lastChangedAt
                        }
                        __typename
                        _version
                        _deleted
                        _lastChangedAt
                      }
                      nextToken
                    }
                    __typename
                    _version
                    _deleted
                    _lastChangedAt
                  }
                }
                """
        )
    }

    @Test func hasOneAndBelongsToSelectTheRelatedObject() throws {
        let statements = try GeneratedStatements(
            """
            type Project @model {
              id: ID!
              name: String!
              team: Team @hasOne
            }

            type Team @model {
              id: ID!
              name: String!
              project: Project @belongsTo
            }
            """,
            conflictDetection: false
        )
        #expect(
            statements.operation("GetProject") == """
                query GetProject($id: ID!) {
                  getProject(id: $id) {
                    id
                    createdAt
                    name
                    projectTeamId
                    updatedAt
                    team {
                      id
                      createdAt
                      name
                      teamProjectId
                      updatedAt
                      __typename
                    }
                    __typename
                  }
                }
                """
        )
        #expect(
            statements.operation("GetTeam") == """
                query GetTeam($id: ID!) {
                  getTeam(id: $id) {
                    id
                    createdAt
                    name
                    teamProjectId
                    updatedAt
                    project {
                      id
                      createdAt
                      name
                      projectTeamId
                      updatedAt
                      __typename
                    }
                    __typename
                  }
                }
                """
        )
    }

    @Test func manyToManySelectsTheJoinModelConnection() throws {
        let statements = try GeneratedStatements(
            """
            type Post @model {
              id: ID!
              title: String!
              tags: [Tag] @manyToMany(relationName: "PostTags")
            }

            type Tag @model {
              id: ID!
              label: String!
              posts: [Post] @manyToMany(relationName: "PostTags")
            }
            """,
            conflictDetection: false
        )
        #expect(
            statements.operation("GetPost") == """
                query GetPost($id: ID!) {
                  getPost(id: $id) {
                    id
                    createdAt
                    title
                    updatedAt
                    tags {
                      items {
                        id
                        createdAt
                        postId
                        tagId
                        updatedAt
                        __typename
                      }
                      nextToken
                    }
                    __typename
                  }
                }
                """
        )
        #expect(
            statements.operation("GetPostTags") == """
                query GetPostTags($id: ID!) {
                  getPostTags(id: $id) {
                    id
                    createdAt
                    postId
                    tagId
                    updatedAt
                    post {
                      id
                      createdAt
                      title
                      updatedAt
                      __typename
                    }
                    tag {
                      id
                      createdAt
                      label
                      updatedAt
                      __typename
                    }
                    __typename
                  }
                }
                """
        )
    }

    @Test func associationsComeAlphabeticallyAfterScalarsWithExplicitForeignKeys() throws {
        let statements = try GeneratedStatements(
            """
            type Author @model {
              id: ID!
              name: String!
            }

            type Book @model {
              isbn: String! @primaryKey
              title: String!
              authorID: ID!
              editorID: ID
              author: Author @belongsTo(fields: ["authorID"])
              editor: Author @belongsTo(fields: ["editorID"])
              awards: [String!]!
            }
            """,
            conflictDetection: false
        )
        #expect(
            statements.operation("GetBook") == """
                query GetBook($isbn: String!) {
                  getBook(isbn: $isbn) {
                    isbn
                    authorID
                    awards
                    createdAt
                    editorID
                    title
                    updatedAt
                    author {
                      id
                      createdAt
                      name
                      updatedAt
                      __typename
                    }
                    editor {
                      id
                      createdAt
                      name
                      updatedAt
                      __typename
                    }
                    __typename
                  }
                }
                """
        )
    }

    @Test func timestampsAreSelectedOnlyWhenTheModelHasThem() throws {
        let statements = try GeneratedStatements(
            """
            type Event @model(timestamps: { createdAt: "occurredAt", updatedAt: null }) {
              id: ID!
              name: String!
            }

            type Log @model(timestamps: null) {
              id: ID!
              line: String!
            }
            """,
            maxDepth: 1,
            conflictDetection: false
        )
        #expect(statements.operation("GetEvent")?.contains("\n    name\n    occurredAt\n    __typename\n") == true)
        #expect(statements.operation("GetLog")?.contains("\n    id\n    line\n    __typename\n") == true)
    }

    @Test func nonModelFieldsSelectTheirFieldsRecursivelyAndStopAtARepeat() throws {
        let statements = try GeneratedStatements(
            """
            type Place @model {
              id: ID!
              name: String!
              kind: PlaceKind
              tags: [String!]
              address: Address
              contacts: [Contact!]
            }

            type Address {
              street: String!
              city: String!
              geo: Geo
              neighbours: [Address]
            }

            type Geo {
              lat: Float!
              lng: Float!
            }

            type Contact {
              name: String!
              phone: AWSPhone
              kind: PlaceKind
            }

            enum PlaceKind {
              CAFE
              PARK
            }
            """,
            conflictDetection: false
        )
        #expect(
            statements.operation("GetPlace") == """
                query GetPlace($id: ID!) {
                  getPlace(id: $id) {
                    id
                    createdAt
                    kind
                    name
                    tags
                    updatedAt
                    address {
                      city
                      street
                      geo {
                        lat
                        lng
                        __typename
                      }
                      __typename
                    }
                    contacts {
                      kind
                      name
                      phone
                      __typename
                    }
                    __typename
                  }
                }
                """
        )
    }

    @Test func nonModelFieldsIgnoreMaxDepth() throws {
        let statements = try GeneratedStatements(
            """
            type Shipment @model {
              id: ID!
              route: Route!
            }

            type Route {
              origin: Stop!
              destination: Stop!
            }

            type Stop {
              name: String!
              geo: Geo!
            }

            type Geo {
              lat: Float!
              lng: Float!
            }
            """,
            maxDepth: 1,
            conflictDetection: false
        )
        #expect(
            statements.operation("GetShipment") == """
                query GetShipment($id: ID!) {
                  getShipment(id: $id) {
                    id
                    createdAt
                    updatedAt
                    route {
                      destination {
                        name
                        geo {
                          lat
                          lng
                          __typename
                        }
                        __typename
                      }
                      origin {
                        name
                        geo {
                          lat
                          lng
                          __typename
                        }
                        __typename
                      }
                      __typename
                    }
                    __typename
                  }
                }
                """
        )
    }
}
