import ArgumentParser
import Foundation
import StratusServer

/// `stratus inspect <database>`: what a device's DataStore or AppSync client store holds, read
/// without writing to it, so it is safe while the app runs.
struct Inspect: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Show what a device's DataStore or AppSync client database holds, without writing to it.",
        discussion: """
            Shows the kind of store, each model's records (live, deleted, pending), the outbox or offline \
            queue in sending order with in-flight marks, and each model's sync state. The file is opened \
            read-only: it is safe while the app has it open.
            """
    )

    @Argument(
        help:
            "A DataStore database, or an AppSync client's offlineMutations.db, queries.db or subscriptionMetadataCache.db."
    )
    var database: String

    @Flag(name: .long, help: "Print JSON (the shape is documented in the command-line guide).")
    var json = false

    @Option(
        name: .long,
        help: "The app's DataStore sync interval in minutes, which decides whether the next sync is delta or base."
    )
    var syncIntervalMinutes: Double = 1440

    @Option(name: .long, help: "The characters of a record shown in the text view before it is cut.")
    var recordWidth: Int = 100

    func validate() throws {
        guard syncIntervalMinutes > 0 else {
            throw ValidationError("--sync-interval-minutes must be more than 0; it is \(syncIntervalMinutes).")
        }
        guard recordWidth > 1 else { throw ValidationError("--record-width must be 2 or more; it is \(recordWidth).") }
    }

    func run() throws {
        let inspection: DeviceStoreInspection
        do {
            inspection = try DeviceStoreInspection(
                fileAt: URL(fileURLWithPath: database),
                syncInterval: syncIntervalMinutes * 60
            )
        } catch {
            throw CommandFailure(error.message)
        }
        print(json ? inspection.json.text : inspection.text(recordWidth: recordWidth))
    }
}
