import AWSAPIPlugin
import AWSPluginsCore
import Amplify
import BlogModels
import Foundation
import StratusTesting
import Testing

/// The API plugin against the local backend over a real socket: the model builders, pagination,
/// conditions, custom documents and IAM signing, end to end.
@Suite struct LocalBackendEndToEndTests {
    static let schema = """
        type Album @model @aws_api_key @aws_iam {
          id: ID!
          title: String!
          photos: [Photo] @connection(name: "AlbumPhotos")
        }

        type Photo @model @aws_api_key @aws_iam {
          id: ID!
          caption: String
          album: Album @connection(name: "AlbumPhotos")
        }
        """

    init() {
        AmplifyModels().registerModels(registry: ModelRegistry.self)
    }

    @Test func modelBuildersRoundTripThroughTheBackend() async throws {
        let backend = try await LocalBackend.start(schema: Self.schema)
        let api = try backend.makeAPIPlugin()
        do {
            let album = try await api.mutate(request: .create(Album(id: "a1", title: "Summer"))).get()
            #expect(album.title == "Summer")
            #expect(album.createdAt != nil)
            _ = try await api.mutate(request: .create(Photo(id: "p1", caption: "Beach", album: album))).get()

            let photo = try #require(try await api.query(request: .get(Photo.self, byId: "p1")).get())
            #expect(photo.caption == "Beach")
            #expect(photo.photoAlbumId == "a1")
            #expect(photo.album?.title == "Summer")

            let missing = try await api.query(request: .get(Photo.self, byId: "nope")).get()
            #expect(missing == nil)

            var renamed = album
            renamed.title = "Winter"
            let refused = try await api.mutate(request: .update(renamed, where: Album.keys.title == "Autumn"))
            guard case .failure(.error(let errors)) = refused else {
                Issue.record("expected a conditional failure, got \(refused)")
                await backend.stop()
                return
            }
            #expect(errors.first?.errorType == "ConditionalCheckFailedException")
            #expect(errors.first?.message.hasPrefix("The conditional request failed") == true)

            // Without _version, AUTOMERGE keeps the server's values; with it, the change applies.
            let merged = try await api.mutate(request: .update(renamed)).get()
            #expect(merged.title == "Summer")
            let updated = try await api.mutate(
                request: .update(renamed, where: Album.keys.title == "Summer", version: 2)
            ).get()
            #expect(updated.title == "Winter")

            let unversioned = try await api.mutate(request: .delete(photo))
            guard case .failure(.error(let conflicts)) = unversioned else {
                Issue.record("expected a conflict, got \(unversioned)")
                await backend.stop()
                return
            }
            #expect(conflicts.first?.errorType == "ConflictUnhandled")
            let deleted = try await api.mutate(request: .delete(photo, version: 1)).get()
            #expect(deleted.id == "p1")
        } catch {
            await backend.stop()
            throw error
        }
        await backend.stop()
    }

    @Test func listPagesWithNextToken() async throws {
        let backend = try await LocalBackend.start(schema: Self.schema)
        let api = try backend.makeAPIPlugin()
        do {
            for index in 1...5 {
                _ = try await api.mutate(request: .create(Album(id: "album-\(index)", title: "Album \(index)"))).get()
            }
            var titles: [String] = []
            var token: String?
            var pages = 0
            repeat {
                let page = try await api.query(request: .list(Album.self, limit: 2, nextToken: token)).get()
                titles += page.map(\.title)
                token = page.nextToken
                pages += 1
            } while token != nil && pages < 10
            #expect(titles.sorted() == (1...5).map { "Album \($0)" })
            #expect(pages == 3)

            let filtered = try await api.query(
                request: .list(Album.self, where: Album.keys.title.beginsWith("Album 4"))
            ).get()
            #expect(filtered.map(\.id) == ["album-4"])
        } catch {
            await backend.stop()
            throw error
        }
        await backend.stop()
    }

    @Test func customDocumentsAndIAM() async throws {
        let backend = try await LocalBackend.start(schema: Self.schema)
        do {
            let iam = try backend.makeAPIPlugin(authorizationType: .awsIAM)
            _ = try await iam.mutate(request: .create(Album(id: "a9", title: "Signed"))).get()
            let request = GraphQLRequest<JSONValue>(
                document: "query Both($id: ID!) { getAlbum(id: $id) { title _version } listAlbums { items { id } } }",
                variables: ["id": "a9"],
                responseType: JSONValue.self
            )
            let json = try await iam.query(request: request).get()
            #expect(json.value(at: "getAlbum.title") == "Signed")
            #expect(json.value(at: "getAlbum._version") == 1)
            #expect(json.value(at: "listAlbums.items.0.id") == "a9")

            let apiKey = try backend.makeAPIPlugin()
            let title = GraphQLRequest<String>(
                document: "query { getAlbum(id: \"a9\") { title } }",
                responseType: String.self,
                decodePath: "getAlbum.title"
            )
            #expect(try await apiKey.query(request: title).get() == "\"Signed\"")
        } catch {
            await backend.stop()
            throw error
        }
        await backend.stop()
    }
}
