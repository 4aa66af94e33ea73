import AWSAppSync
import BlogAPI
import Foundation
import StratusTesting
import Testing

/// Operations generated from Tests/Fixtures/blog.graphql's own statements, against the local
/// backend serving that schema.
@Suite struct BlogAPITests {
    static let fixtures = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().appending(path: "Fixtures")

    @Test func generatedOperationsReadTheBackendsResponses() async throws {
        let schema = try String(contentsOf: Self.fixtures.appending(path: "blog.graphql"), encoding: .utf8)
        let backend = try await LocalBackend.start(schema: schema)
        do {
            let created = try await backend.perform(
                CreateAlbumMutation(input: CreateAlbumInput(id: "a1", title: "Summer"))
            )
            #expect(created.errors == nil)
            let album = try #require(created.data?.createAlbum)
            #expect(album.title == "Summer")
            #expect(album.version == 1)
            #expect(album.deleted == nil)

            let listed = try await backend.perform(ListAlbumsQuery(limit: 10))
            let items = try #require(listed.data?.listAlbums?.items)
            #expect(items.map { $0?.id } == ["a1"])
            #expect(listed.data?.listAlbums?.startedAt == nil)

            let got = try await backend.perform(GetAlbumQuery(id: "a1"))
            #expect(got.data?.getAlbum?.createdAt == album.createdAt)
        } catch {
            await backend.stop()
            throw error
        }
        await backend.stop()
    }
}
