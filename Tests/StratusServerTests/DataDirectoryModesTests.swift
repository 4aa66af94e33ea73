import Foundation
import StratusCodegen
import Testing

@testable import StratusCognito
@testable import StratusServer

/// The data directory holds the local Cognito's signing key and the users' verifiers: it is its
/// owner's alone, whatever the umask, and one found readable by others is narrowed with a warning.
@Suite struct DataDirectoryModesTests {
    /// The permission bits of `path`.
    static func mode(_ path: URL) throws -> Int {
        let attributes = try FileManager.default.attributesOfItem(atPath: path.path(percentEncoded: false))
        return try #require(attributes[.posixPermissions] as? Int)
    }

    /// The names and permission bits of the directory and the files in it.
    static func modes(_ directory: URL) throws -> [String: String] {
        var modes = [".": String(try mode(directory), radix: 8)]
        for name in try FileManager.default.contentsOfDirectory(atPath: directory.path(percentEncoded: false)) {
            modes[name] = String(try mode(directory.appending(path: name)), radix: 8)
        }
        return modes
    }

    @Test func aNewDataDirectoryAndEveryFileInItAreTheOwnersAlone() async throws {
        let directory = temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let schema = try SchemaParser().parse("type Note @model { id: ID! }", fileName: "schema.graphql")
        let log = LogRecorder()
        let server = try StratusServer(schema: schema, dataDirectory: directory, log: { log.record($0) })
        defer { try? server.close() }
        // A write, so that the write-ahead log and its index exist.
        _ = await server.execute(query: #"mutation { createNote(input: {id: "n1"}) { id } }"#, identity: .apiKey)
        let pool = try await CognitoUserPool(
            configuration: CognitoConfiguration(),
            store: CognitoUserPool.store(in: directory, log: { log.record($0) })
        )
        #expect(pool.jwks.contains("RSA"))

        // The process's umask (0022 here) would have left them readable by everyone.
        #expect(
            try Self.modes(directory) == [
                ".": "700", "stratus.sqlite": "600", "stratus.sqlite-wal": "600", "stratus.sqlite-shm": "600",
                "stratus.lock": "600", "cognito.sqlite": "600",
            ]
        )
        #expect(log.messages == [])
    }

    @Test func aDirectoryAndFilesOthersCanReadAreNarrowedWithAWarningNamingEach() async throws {
        let directory = temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        _ = try await CognitoUserPool(
            configuration: CognitoConfiguration(),
            store: CognitoUserPool.store(in: directory, log: { _ in })
        )
        // As an earlier version left them.
        let path = directory.path(percentEncoded: false)
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: path)
        try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: path + "/cognito.sqlite")
        try Data("da2-old".utf8).write(to: directory.appending(path: "api-key"))
        try FileManager.default.setAttributes([.posixPermissions: 0o640], ofItemAtPath: path + "/api-key")

        let log = LogRecorder()
        _ = try await CognitoUserPool(
            configuration: CognitoConfiguration(),
            store: CognitoUserPool.store(in: directory, log: { log.record($0) })
        )
        #expect(
            log.messages == [
                "Warning: the data directory '\(path)' had mode 0755, which lets other users list and read it; "
                    + "its mode is now 0700.",
                "Warning: the data file '\(path)/api-key' had mode 0640, which lets other users read it; "
                    + "its mode is now 0600.",
                "Warning: the data file '\(path)/cognito.sqlite' had mode 0644, which lets other users read it; "
                    + "its mode is now 0600.",
            ]
        )
        #expect(try Self.modes(directory) == [".": "700", "cognito.sqlite": "600", "api-key": "600"])
    }
}
