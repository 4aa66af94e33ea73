import Foundation
import StratusBackend
import StratusCodegen
import StratusServer
import Testing

/// The backend as `stratus serve` assembles it.
@Suite struct BackendTests {
    static let schema = "type Note @model { id: ID! text: String }"

    /// A backend on a data directory of its own that takes the directory's API key.
    static func configuration(_ directory: URL) throws -> Backend.Configuration {
        Backend.Configuration(
            schema: try SchemaParser().parse(schema),
            store: .dataDirectory(directory),
            authorization: ServerAuthorization(defaultMode: .apiKey),
            usesStoredAPIKey: true,
            log: { _ in }
        )
    }

    static func temporaryDirectory() -> URL {
        FileManager.default.temporaryDirectory.appending(path: "stratus-backend-tests-\(UUID().uuidString)")
    }

    @Test func theDataDirectorysAPIKeyIsMadeOnceAndServedAgain() async throws {
        let directory = Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let first = try await Backend.open(Self.configuration(directory))
        let key = try #require(first.authorization.apiKeys.first?.value)
        #expect(key.hasPrefix("da2-") && key.count == 30)
        try first.close()
        let second = try await Backend.open(Self.configuration(directory))
        defer { try? second.close() }
        #expect(second.authorization.apiKeys.map(\.value) == [key])
    }

    /// A key file that is not text was replaced with a new key, and clients holding the old one
    /// were locked out without a word.
    @Test func anAPIKeyFileThatIsNotTextIsNamedAndKept() async throws {
        let directory = Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let file = directory.appending(path: "api-key")
        let bytes = Data([0x64, 0x61, 0x32, 0x2D, 0xFF, 0xFE])
        try bytes.write(to: file)
        await #expect {
            try await Backend.open(Self.configuration(directory))
        } throws: { error in
            "\(error)"
                == "The API key file '\(file.path)' is not UTF-8 text. Put the key in it, or delete it to have a new "
                + "key made."
        }
        #expect(try Data(contentsOf: file) == bytes)
    }
}
