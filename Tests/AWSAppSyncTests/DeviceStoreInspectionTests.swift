import Foundation
import StratusServer
import Testing
import TodoAPI

@testable import AWSAppSync

/// `DeviceStoreInspection` (what `stratus inspect` prints) on the databases of a live AppSync
/// client: its offline queue in order, its query cache and its delta sync metadata, read without
/// writing to them.
@Suite struct AppSyncDeviceStoreInspectionTests {
    @Test(.timeLimit(.minutes(1))) func theOfflineQueueOfALiveClientIsShownInOrderWithoutWritingToIt()
        async throws
    {
        try await OfflineClients.withBackend { clients in
            let transport = RecordingTransport()
            transport.holdNextPost()
            let appSyncClient = try clients.makeClient(transport: transport)
            for (id, name) in [("r1", "Milk"), ("r2", "Bread")] {
                _ = appSyncClient.perform(
                    mutation: CreateTodoMutation(input: CreateTodoInput(id: id, name: name)),
                    resultHandler: nil
                )
            }
            // The first one is on its way, held; the second waits behind it.
            #expect(try await OfflineClients.eventually { transport.isHolding })
            let file = clients.directory.appending(path: "offlineMutations.db")
            let wal = URL(fileURLWithPath: file.path + "-wal")
            let before = try [file, wal].map(Self.bytesAndDate)

            let inspection = try DeviceStoreInspection(fileAt: file)

            #expect(try [file, wal].map(Self.bytesAndDate) == before, "the inspection wrote to the queue")
            let queued = try clients.queued
            #expect(queued.map(\.recordKey) == ["r1", "r2"])
            let entries = try queued.enumerated().map { position, mutation in
                #"{"position":\#(position + 1),"sequence":\#(mutation.sequence),"id":"\#(mutation.id)","#
                    + #""operationName":"CreateTodo","recordKey":"\#(mutation.recordKey ?? "")","#
                    + #""createdAt":"\#(mutation.createdAt.formatted(.iso8601WithMilliseconds))","attempts":0,"#
                    + #""lastError":null,"request":\#(try JSON(parsing: mutation.requestBody).text)}"#
            }
            #expect(
                inspection.json.text
                    == #"{"inspectionFormat":1,"path":"\#(file.path)","kind":"appSyncClient","appSyncClient":{"#
                    + #""offlineQueue":[\#(entries.joined(separator: ","))],"cache":null,"deltaSync":null}}"#
            )
            #expect(
                inspection.text().split(separator: "\n", omittingEmptySubsequences: false).prefix(4) == [
                    "AppSync client database \(file.path) (offline mutation queue)",
                    "",
                    "Offline queue: 2 queued mutations, sent in this order",
                    "  1. CreateTodo \(queued[0].id) of record r1, queued "
                        + "\(queued[0].createdAt.formatted(.iso8601WithMilliseconds)), 0 failed attempts",
                ]
            )

            let cache = try DeviceStoreInspection(fileAt: clients.directory.appending(path: "queries.db"))
            #expect(
                cache.json.text.hasSuffix(
                    #""kind":"appSyncClient","appSyncClient":{"offlineQueue":null,"#
                        + #""cache":{"fileVersion":2,"records":0,"optimisticLayers":[]},"deltaSync":null}}"#
                )
            )
            let metadata = try DeviceStoreInspection(
                fileAt: clients.directory.appending(path: "subscriptionMetadataCache.db")
            )
            #expect(
                metadata.json.text.hasSuffix(
                    #""appSyncClient":{"offlineQueue":null,"cache":null,"deltaSync":[]}}"#
                )
            )
            transport.release()
        }
    }

    static func bytesAndDate(_ url: URL) throws -> [String] {
        guard FileManager.default.fileExists(atPath: url.path) else { return ["absent"] }
        let modified = try FileManager.default.attributesOfItem(atPath: url.path)[.modificationDate] as? Date
        return [try Data(contentsOf: url).base64EncodedString(), "\(try #require(modified).timeIntervalSince1970)"]
    }
}

extension FormatStyle where Self == Date.ISO8601FormatStyle {
    /// ISO 8601 with milliseconds, in UTC: how the inspection writes times.
    static var iso8601WithMilliseconds: Date.ISO8601FormatStyle {
        Date.ISO8601FormatStyle(includingFractionalSeconds: true)
    }
}
