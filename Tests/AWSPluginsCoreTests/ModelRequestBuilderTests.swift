import AWSPluginsCore
import Amplify
import BlogModels
import Testing

private typealias BlogTag = BlogModels.Tag

/// The documents and variables of the model request builders, exactly.
@Suite struct ModelRequestBuilderTests {
    init() {
        AmplifyModels().registerModels(registry: ModelRegistry.self)
    }

    static let photoSelection = """
            id
            caption
            createdAt
            photoAlbumId
            updatedAt
            album {
              id
              createdAt
              title
              updatedAt
              __typename
            }
            __typename
        """

    @Test func createSendsStoredFieldsOnly() throws {
        let album = Album(id: "a1", title: "Summer")
        let photo = Photo(id: "p1", caption: nil, album: album)
        let request = try GraphQLRequest<Photo>.create(photo)
        #expect(
            request.document == """
                mutation CreatePhoto($input: CreatePhotoInput!) {
                  createPhoto(input: $input) {
                \(Self.photoSelection)
                  }
                }
                """
        )
        #expect(request.variables == ["input": ["id": "p1", "photoAlbumId": "a1"]])
        #expect(request.decodePath == "createPhoto")
    }

    @Test func updateClearsNilFieldsAndSendsTheCondition() throws {
        let photo = Photo(id: "p1", caption: nil)
        let request = try GraphQLRequest<Photo>.update(photo, where: Photo.keys.caption.attributeExists(true))
        #expect(
            request.document.hasPrefix(
                "mutation UpdatePhoto($input: UpdatePhotoInput!, $condition: ModelPhotoConditionInput) {\n  updatePhoto(input: $input, condition: $condition) {\n"
            )
        )
        #expect(
            request.variables == [
                "input": ["id": "p1", "caption": nil, "photoAlbumId": nil],
                "condition": ["caption": ["attributeExists": true]],
            ]
        )
    }

    @Test func deleteSendsTheKey() throws {
        let author = Author(country: "FR", handle: "ada", displayName: "Ada")
        let request = try GraphQLRequest<Author>.delete(author)
        #expect(request.variables == ["input": ["country": "FR", "handle": "ada"]])
        #expect(
            request.document.hasPrefix(
                "mutation DeleteAuthor($input: DeleteAuthorInput!, $condition: ModelAuthorConditionInput) {\n  deleteAuthor(input: $input, condition: $condition) {\n    country\n    handle\n"
            )
        )
    }

    @Test func getDecodesAnOptional() {
        let request = GraphQLRequest<BlogTag?>.get(BlogTag.self, byId: "t1")
        #expect(
            request.document == """
                query GetTag($id: ID!) {
                  getTag(id: $id) {
                    id
                    createdAt
                    label
                    updatedAt
                    __typename
                  }
                }
                """
        )
        #expect(request.variables == ["id": "t1"])
        #expect(request.decodePath == "getTag")
    }

    @Test func listPassesFilterLimitAndToken() {
        let request = GraphQLRequest<List<BlogTag>>.list(
            BlogTag.self,
            where: BlogTag.keys.label.beginsWith("sw"),
            limit: 50,
            nextToken: "abc"
        )
        #expect(
            request.document == """
                query ListTags($filter: ModelTagFilterInput, $limit: Int, $nextToken: String) {
                  listTags(filter: $filter, limit: $limit, nextToken: $nextToken) {
                    items {
                      id
                      createdAt
                      label
                      updatedAt
                      __typename
                    }
                    nextToken
                  }
                }
                """
        )
        #expect(request.variables == ["filter": ["label": ["beginsWith": "sw"]], "limit": 50, "nextToken": "abc"])
        #expect(GraphQLRequest<List<BlogTag>>.list(BlogTag.self).variables == ["limit": 1000])
    }

    @Test func subscriptionWithSyncFields() {
        let request = GraphQLRequest<BlogTag>.subscription(of: BlogTag.self, type: .onDelete, includesSyncFields: true)
        #expect(
            request.document == """
                subscription OnDeleteTag {
                  onDeleteTag {
                    id
                    createdAt
                    label
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

    @Test func embeddedFieldsSelectTheirOwnFields() {
        let request = GraphQLRequest<Author?>.get(Author.self, byId: "FR")
        #expect(
            request.document.contains(
                "    home {\n      street\n      city\n      postcode\n      location {\n        latitude\n        longitude\n      }\n    }\n"
            )
        )
    }
}

extension ModelRequestBuilderTests {
    @Test func getWithACompositeKey() {
        let request = GraphQLRequest<Author?>.get(Author.self, byId: "FR#ada")
        #expect(
            request.document.hasPrefix(
                "query GetAuthor($country: String!, $handle: String!) {\n  getAuthor(country: $country, handle: $handle) {\n"
            )
        )
        #expect(request.variables == ["country": "FR", "handle": "ada"])
    }

    /// The generated identifier gives each key field as it is: a `#` in a value is not a
    /// separator.
    @Test func getByTheGeneratedIdentifier() {
        let request = GraphQLRequest<Author?>.get(Author.self, byIdentifier: .identifier(country: "FR", handle: "a#b"))
        #expect(
            request.document.hasPrefix(
                "query GetAuthor($country: String!, $handle: String!) {\n  getAuthor(country: $country, handle: $handle) {\n"
            )
        )
        #expect(request.variables == ["country": "FR", "handle": "a#b"])
        #expect(request.decodePath == "getAuthor")
    }
}

extension ModelRequestBuilderTests {
    /// A model that cannot be encoded is refused, naming the model and its identifier, rather than
    /// sent as a mutation with an empty `input`.
    @Test(arguments: ["create", "update", "delete"])
    func aModelThatCannotBeEncodedIsRefused(operation: String) throws {
        let post = BlogModels.Post(id: "p1", title: "Title", status: .draft, score: .nan)
        let encodeError = try #require(throws: EncodingError.self) { try post.jsonValue() }
        let error = try #require(throws: APIError.self) {
            switch operation {
            case "create": _ = try GraphQLRequest<BlogModels.Post>.create(post)
            case "update": _ = try GraphQLRequest<BlogModels.Post>.update(post)
            default: _ = try GraphQLRequest<BlogModels.Post>.delete(post)
            }
        }
        guard case .operationError(let message, let fix) = error else {
            Issue.record("Expected an operation error, got \(error)")
            return
        }
        #expect(message == "The Post 'p1' cannot be encoded as the input of \(operation)Post: \(encodeError).")
        #expect(fix == "Check the values of its fields; a Double cannot be infinite or NaN.")
    }
}
