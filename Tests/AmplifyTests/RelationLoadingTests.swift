import Amplify
import BlogModels
import Foundation
import Synchronization
import Testing

/// Lists and references decoded with a loader in the decoder's userInfo load on first access.
@Suite struct RelationLoadingTests {
    final class RecordingLoader: ModelRelationLoader {
        let calls = Mutex<[String]>([])
        let records: [String: [JSONValue]]

        init(records: [String: [JSONValue]]) {
            self.records = records
        }

        func load<M: Model>(_ type: M.Type, matching values: [String: JSONValue]) throws -> [M] {
            let description = values.keys.sorted().map { "\($0)=\(values[$0]?.stringValue ?? "?")" }.joined(
                separator: ","
            )
            calls.withLock { $0.append("\(M.modelName)(\(description))") }
            return try (records[M.modelName] ?? [])
                .filter { record in values.allSatisfy { record[$0.key] == $0.value } }
                .map { try $0.decode(as: M.self) }
        }
    }

    func decoder(with loader: RecordingLoader) -> JSONDecoder {
        let decoder = JSONDecoder()
        decoder.userInfo[.modelRelationLoader] = loader
        return decoder
    }

    @Test func hasManyLoadsOnFirstAccess() throws {
        let loader = RecordingLoader(records: [
            "Comment": [
                ["id": "c1", "content": "first", "postCommentsId": "p1"],
                ["id": "c2", "content": "other", "postCommentsId": "p2"],
            ]
        ])
        let json: JSONValue = ["id": "p1", "title": "t", "status": "DRAFT"]
        let post = try json.decode(as: Post.self, decoder: decoder(with: loader))
        #expect(loader.calls.withLock { $0 }.isEmpty)
        let comments = try #require(post.comments)
        #expect(!comments.isLoaded)
        #expect(comments.map(\.content) == ["first"])
        #expect(comments.count == 1)
        #expect(loader.calls.withLock { $0 } == ["Comment(postCommentsId=p1)"])
    }

    @Test func belongsToLoadsOnFirstAccess() throws {
        let loader = RecordingLoader(records: ["Post": [["id": "p1", "title": "Loaded", "status": "PUBLISHED"]]])
        let json: JSONValue = ["id": "c1", "content": "hi", "postCommentsId": "p1"]
        let comment = try json.decode(as: BlogModels.Comment.self, decoder: decoder(with: loader))
        #expect(comment.postCommentsId == "p1")
        #expect(comment.post?.title == "Loaded")
        #expect(comment.post?.status == .published)
        #expect(loader.calls.withLock { $0 } == ["Post(id=p1)"])
    }

    @Test func withoutALoaderNothingLoads() throws {
        let json: JSONValue = ["id": "c1", "content": "hi", "postCommentsId": "p1"]
        let comment = try json.decode(as: BlogModels.Comment.self)
        #expect(comment.post == nil)
        #expect(comment.postCommentsId == "p1")
        let post = try (["id": "p1", "title": "t", "status": "DRAFT"] as JSONValue).decode(as: Post.self)
        #expect(post.comments == nil)
    }
}
