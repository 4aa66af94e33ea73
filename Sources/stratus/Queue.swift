import AWSAppSync
import ArgumentParser
import Foundation

/// `stratus queue …`: what an AppSync client left in its offline mutation queue.
struct Queue: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Inspect the offline mutation queue of an AppSync client.",
        subcommands: [List.self]
    )

    /// `stratus queue list --database <dir>`.
    struct List: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract:
                "List the mutations queued in a client's offlineMutations.db: what, how often tried, the last error."
        )

        @Option(
            name: .long,
            help: "The client's cache directory (holding [<prefix>_]offlineMutations.db), or the file itself."
        )
        var database: String

        func run() throws {
            let url = URL(fileURLWithPath: database)
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory) else {
                throw CommandFailure("'\(database)' does not exist. Pass a client's cache directory.")
            }
            var files = [url]
            if isDirectory.boolValue {
                files = try FileManager.default.contentsOfDirectory(at: url, includingPropertiesForKeys: nil)
                    .filter { $0.lastPathComponent.hasSuffix("offlineMutations.db") }
                    .sorted { $0.lastPathComponent < $1.lastPathComponent }
                guard !files.isEmpty else {
                    throw CommandFailure(
                        "No offlineMutations.db in '\(database)'. Pass the cache directory of an AppSync client "
                            + "(the rootDirectory of its AWSAppSyncCacheConfiguration; ~/.cache/appsync by default)."
                    )
                }
            }
            for file in files {
                let queued: [QueuedMutation]
                do {
                    queued = try OfflineMutationStore.queuedMutations(inDatabaseAt: file)
                } catch {
                    throw CommandFailure("\(error)")
                }
                print(Self.describe(queued, file: file.lastPathComponent))
            }
        }

        /// The listing of one database.
        static func describe(_ queued: [QueuedMutation], file: String) -> String {
            guard !queued.isEmpty else { return "\(file): no queued mutations" }
            var lines = ["\(file): \(queued.count) queued mutation\(queued.count == 1 ? "" : "s"), sent in this order"]
            let formatter = ISO8601DateFormatter()
            for (position, mutation) in queued.enumerated() {
                let tries = mutation.attempts == 1 ? "1 failed attempt" : "\(mutation.attempts) failed attempts"
                lines.append(
                    "\(position + 1). \(mutation.operationName) \(mutation.id), queued \(formatter.string(from: mutation.createdAt)), \(tries)"
                )
                if let lastError = mutation.lastError {
                    lines.append("   last error: \(lastError)")
                }
            }
            return lines.joined(separator: "\n")
        }
    }
}
