// A client process for the tests of the offline mutation queue, which quit it or kill it with
// SIGKILL at random points (AWSAppSyncTests).
//
//     AppSyncQueueChild enqueue <cache directory> <endpoint> <api key> <count>
//         queues `item-0` … `item-<count-1>` (creates with a client id for even numbers,
//         without one for odd numbers), continuing where an earlier, killed run stopped;
//         prints "ENQUEUED <count>".
//     AppSyncQueueChild drain <cache directory> <endpoint> <api key>
//         sends what is queued; prints "DRAINED" once the queue is empty.
//
// With `enqueue-file` and `drain-file`, the second argument is a database file instead, and the
// client is configured as the seeds configure it: with
// `AWSAppSyncClientConfiguration(appSyncClientInfo:databaseURL:)`.
import AWSAppSync
import Foundation
import TodoAPI

let arguments = CommandLine.arguments
guard arguments.count >= 5, let endpoint = URL(string: arguments[3]) else {
    FileHandle.standardError.write(
        Data("usage: AppSyncQueueChild enqueue|drain[-file] <dir or file> <endpoint> <api key> [count]\n".utf8)
    )
    exit(64)
}
let command = arguments[1]
let usesDatabaseURL = command.hasSuffix("-file")
let location = URL(fileURLWithPath: arguments[2])
let directory = usesDatabaseURL ? location.deletingLastPathComponent() : location
let queueFile = usesDatabaseURL ? location : directory.appending(path: "offlineMutations.db")
let serviceConfig = AWSAppSyncServiceConfig(
    endpoint: endpoint,
    region: "us-east-1",
    authType: .apiKey,
    apiKey: arguments[4]
)
let appSyncConfig =
    usesDatabaseURL
    ? try AWSAppSyncClientConfiguration(appSyncClientInfo: serviceConfig, databaseURL: location)
    : try AWSAppSyncClientConfiguration(
        appSyncServiceConfig: serviceConfig,
        cacheConfiguration: AWSAppSyncCacheConfiguration(withRootDirectory: directory)
    )
let appSyncClient = try AWSAppSyncClient(appSyncConfig: appSyncConfig)

switch command {
case "enqueue", "enqueue-file":
    guard arguments.count == 6, let count = Int(arguments[5]) else { exit(64) }
    // The number queued is written after each enqueue; a kill between the two leaves the
    // mutation in the queue (nothing is sent while enqueueing: the endpoint is closed).
    let marker = directory.appending(path: "enqueued.txt")
    var next = 0
    if FileManager.default.fileExists(atPath: marker.path) {
        guard let written = Int(try String(contentsOf: marker, encoding: .utf8)) else {
            FileHandle.standardError.write(Data("\(marker.path) does not hold a number.\n".utf8))
            exit(65)
        }
        next = written
    }
    for mutation in try OfflineMutationStore.queuedMutations(inDatabaseAt: queueFile) {
        guard let name = mutation.requestBody.firstMatch(of: /"name":"item-(\d+)"/), let index = Int(name.1) else {
            continue
        }
        next = max(next, index + 1)
    }
    while next < count {
        let input =
            next.isMultiple(of: 2)
            ? CreateTodoInput(id: "k-\(next)", name: "item-\(next)") : CreateTodoInput(name: "item-\(next)")
        appSyncClient.perform(mutation: CreateTodoMutation(input: input))
        next += 1
        try Data(String(next).utf8).write(to: marker, options: .atomic)
    }
    print("ENQUEUED \(count)")
case "drain", "drain-file":
    try await appSyncClient.waitUntilMutationQueueIsEmpty()
    print("DRAINED")
default:
    exit(64)
}
