import Foundation
import StratusCodegen
import Testing

@testable import StratusCognito
@testable import StratusServer

#if canImport(Glibc)
    import Glibc
#endif

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

/// A data directory that was once open to others may hold a symbolic link, or a file of another
/// user's, where the server keeps its data: the server refuses it, naming the path and the fix,
/// rather than writing the signing key where that user reads it.
@Suite struct DataDirectoryLinksTests {
    /// A data directory of mode 0777 whose entry `name` links to an empty file of mode 0666
    /// elsewhere, as another local user would plant it; the directory, the planted file and the
    /// directory holding it.
    static func plant(_ name: String) throws -> (directory: URL, planted: URL, elsewhere: URL) {
        let directory = temporaryDirectory()
        let elsewhere = temporaryDirectory()
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        try FileManager.default.createDirectory(at: elsewhere, withIntermediateDirectories: true)
        try FileManager.default.setAttributes([.posixPermissions: 0o777], ofItemAtPath: directory.path)
        let planted = elsewhere.appending(path: "planted")
        try Data().write(to: planted)
        try FileManager.default.setAttributes([.posixPermissions: 0o666], ofItemAtPath: planted.path)
        try FileManager.default.createSymbolicLink(
            atPath: directory.appending(path: name).path,
            withDestinationPath: planted.path
        )
        return (directory, planted, elsewhere)
    }

    static func refusal(_ path: String, linkingTo target: String) -> String {
        "The data file '\(path)' is a symbolic link (to '\(target)'). The server does not follow links in "
            + "its data directory: a link planted while the directory was open to other users would send the "
            + "signing key and the users' data to a file they read. Remove the link (rm '\(path)'), or use "
            + "another data directory."
    }

    @Test func theUserPoolRefusesALinkedCognitoDatabaseAndWritesNothingThrough() async throws {
        let (directory, planted, elsewhere) = try Self.plant("cognito.sqlite")
        defer {
            try? FileManager.default.removeItem(at: directory)
            try? FileManager.default.removeItem(at: elsewhere)
        }
        let path = directory.path(percentEncoded: false)
        #expect {
            _ = try CognitoUserPool.store(in: directory, log: { _ in })
        } throws: { error in
            "\(error)"
                == "The user pool's state in \(directory.path) cannot be opened: "
                + Self.refusal(path + "/cognito.sqlite", linkingTo: planted.path)
        }
        // The attack wrote the signing key and the administrator's credentials into it.
        #expect(try Data(contentsOf: planted).isEmpty)
    }

    @Test(arguments: ["stratus.sqlite", "stratus.sqlite-wal", "stratus.lock"])
    func theAPIStoreRefusesALinkedDataFile(name: String) async throws {
        let (directory, planted, elsewhere) = try Self.plant(name)
        defer {
            try? FileManager.default.removeItem(at: directory)
            try? FileManager.default.removeItem(at: elsewhere)
        }
        let schema = try SchemaParser().parse("type Note @model { id: ID! }", fileName: "schema.graphql")
        #expect {
            _ = try StratusServer(schema: schema, dataDirectory: directory, log: { _ in })
        } throws: { error in
            "\(error)"
                == Self.refusal(directory.path(percentEncoded: false) + "/" + name, linkingTo: planted.path)
        }
        #expect(try Data(contentsOf: planted).isEmpty)
    }

    /// A hard link, or a file another user created while the directory was open, is the same
    /// attack without a symbolic link: that user owns the file and reads what is written to it.
    @Test(.enabled(if: geteuid() == 0, "Only root can give a file to another user."))
    func aDataFileOfAnotherUserIsRefused() async throws {
        let directory = temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let path = directory.appending(path: "cognito.sqlite").path(percentEncoded: false)
        try Data().write(to: URL(filePath: path))
        #expect(chown(path, 65534, 65534) == 0)
        #expect {
            _ = try CognitoUserPool.store(in: directory, log: { _ in })
        } throws: { error in
            "\(error)"
                == "The user pool's state in \(directory.path) cannot be opened: The data file '\(path)' belongs "
                + "to user 65534, not to user 0 that the server runs as: another user may have planted it, and "
                + "reads what is written to it. Remove it (rm '\(path)'), or use another data directory."
        }
        #expect(try Data(contentsOf: URL(filePath: path)).isEmpty)
    }
}
