import Foundation
import HTTPTypes
import Hummingbird
import StratusServer

/// The Devices page's admin API: what a device's DataStore or AppSync client database holds,
/// as `stratus inspect --json` prints it.
extension ConsoleEndpoint {
    /// `POST /console/api/devices` with `{"path": "<database file>", "syncIntervalMinutes": 1440}`:
    /// the inspection of the database at `path` (absolute, or relative to the directory
    /// `stratus serve` runs in; `~` is the user's home), in the shape `stratus inspect --json`
    /// prints. The file is opened read-only, so it is safe while the app has it open.
    /// `syncIntervalMinutes` (the app's DataStore sync interval, a day unless given) decides
    /// whether a model's next sync is delta or base.
    ///
    /// A file that cannot be inspected is refused with an `errorType` naming the problem
    /// (`fileMissing`, `directory`, `notAStore`, `newerFormat`, `unreadable`) and a message that
    /// says what to pass instead.
    func devices(_ request: Request) async -> Response {
        let body: JSONObject
        switch await Self.objectBody(of: request, example: #"{"path": "/path/to/datastore.sqlite"}"#) {
        case .success(let object): body = object
        case .failure(let refusal): return refusal.response
        }
        guard let path = body["path"]?.stringValue, !path.trimmingCharacters(in: .whitespaces).isEmpty else {
            return Self.refusal(
                .badRequest,
                #"The body names no database: send {"path": "/path/to/datastore.sqlite"}, the path of a DataStore "#
                    + "database or of an AppSync client's offlineMutations.db, queries.db or "
                    + "subscriptionMetadataCache.db.",
                json: true
            )
        }
        var minutes = 1440.0
        if let given = body["syncIntervalMinutes"], !given.isNull {
            guard let value = given.doubleValue, value > 0 else {
                return Self.refusal(
                    .badRequest,
                    "syncIntervalMinutes is \(given.text); give the app's DataStore sync interval in minutes, more "
                        + "than 0 (1440 unless the app sets one).",
                    json: true
                )
            }
            minutes = value
        }
        let expanded = NSString(string: path.trimmingCharacters(in: .whitespaces)).expandingTildeInPath
        // Read on a thread of its own: a store the app holds locked is waited for, up to 10 seconds.
        let url = URL(fileURLWithPath: expanded)
        let interval = minutes * 60
        let inspected = await withCheckedContinuation { continuation in
            Thread.detachNewThread {
                do throws(DeviceStoreInspectionError) {
                    let inspection = try DeviceStoreInspection(fileAt: url, syncInterval: interval)
                    continuation.resume(returning: Result<JSON, DeviceStoreInspectionError>.success(inspection.json))
                } catch {
                    continuation.resume(returning: .failure(error))
                }
            }
        }
        switch inspected {
        case .success(let json):
            return Self.jsonResponse(json)
        case .failure(let error):
            let status: HTTPResponse.Status =
                switch error.code {
                case .fileMissing: .notFound
                case .unreadable: .internalServerError
                default: .badRequest
                }
            return Self.jsonResponse(
                ["errors": [["errorType": .string(error.code.description), "message": .string(error.message)]]],
                status: status
            )
        }
    }
}
