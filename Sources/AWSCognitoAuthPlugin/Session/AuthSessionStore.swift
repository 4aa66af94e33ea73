import Amplify
import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Where the plugin keeps the session (tokens, identity id, credentials) between runs.
///
/// ``FileAuthSessionStore`` is the default on Linux; an app with a keychain implements this
/// protocol over it and passes it to `AWSCognitoAuthPlugin(sessionStore:)`.
///
/// ```swift
/// struct KeychainSessionStore: AuthSessionStore {
///     func load() throws -> Data? { try keychain.data(for: "auth-session") }
///     func save(_ data: Data) throws { try keychain.set(data, for: "auth-session") }
///     func remove() throws { try keychain.remove("auth-session") }
/// }
/// ```
public protocol AuthSessionStore: Sendable {
    /// The stored session, or `nil` when there is none.
    ///
    /// - Throws: Whatever prevents reading it.
    func load() throws -> Data?
    /// Replaces the stored session.
    ///
    /// - Throws: Whatever prevents writing it.
    func save(_ data: Data) throws
    /// Removes the stored session; removing none is not an error.
    ///
    /// - Throws: Whatever prevents removing it.
    func remove() throws
}

/// A session kept in memory only: it ends with the process.
public final class InMemoryAuthSessionStore: AuthSessionStore {
    private let data = Mutex<Data?>(nil)

    /// An empty store.
    public init() {}

    public func load() throws -> Data? { data.withLock { $0 } }
    public func save(_ data: Data) throws { self.data.withLock { $0 = data } }
    public func remove() throws { data.withLock { $0 = nil } }
}

/// A session kept in a file that only its owner can read (mode 0600), replaced atomically.
///
/// By default the file is `$XDG_DATA_HOME/stratus/auth/<name>.json`, or
/// `~/.local/share/stratus/auth/<name>.json` when `XDG_DATA_HOME` is not set; the directories
/// are created with mode 0700. A write goes to a temporary file in the same directory, created
/// with mode 0600, flushed to disk, then renamed over the old one: a crash leaves the old
/// session or the new one, never a mix.
public struct FileAuthSessionStore: AuthSessionStore {
    /// The session file.
    public let url: URL

    /// A store in the file `url`.
    public init(url: URL) {
        self.url = url
    }

    /// A store named `name` (such as the user pool's id) in the XDG data directory.
    public init(name: String, environment: [String: String] = ProcessInfo.processInfo.environment) {
        let base = UserDirectories.data(environment: environment)
        let safe = String(name.map { $0.isLetter || $0.isNumber || $0 == "-" || $0 == "_" ? $0 : "_" })
        self.init(url: base.appending(path: "stratus/auth/\(safe).json"))
    }

    /// The file's contents, or `nil` when it does not exist.
    ///
    /// - Throws: `CocoaError` when the file exists but cannot be read.
    public func load() throws -> Data? {
        guard FileManager.default.fileExists(atPath: url.path) else { return nil }
        return try Data(contentsOf: url)
    }

    /// Writes `data` atomically with mode 0600.
    ///
    /// - Throws: `POSIXError` naming the failing call when the directory or the file cannot be written.
    public func save(_ data: Data) throws {
        let directory = url.deletingLastPathComponent()
        try FileManager.default.createDirectory(
            at: directory,
            withIntermediateDirectories: true,
            attributes: [.posixPermissions: 0o700]
        )
        let temporary = directory.appending(path: ".\(url.lastPathComponent).\(UUID().uuidString).tmp")
        let descriptor = open(temporary.path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { throw Self.posixError("open \(temporary.path)") }
        var written = 0
        let failure: POSIXError? = data.withUnsafeBytes { buffer in
            while written < buffer.count {
                let count = write(descriptor, buffer.baseAddress! + written, buffer.count - written)
                if count < 0 {
                    if errno == EINTR { continue }
                    return Self.posixError("write \(temporary.path)")
                }
                written += count
            }
            return fsync(descriptor) == 0 ? nil : Self.posixError("fsync \(temporary.path)")
        }
        close(descriptor)
        if let failure {
            unlink(temporary.path)
            throw failure
        }
        guard rename(temporary.path, url.path) == 0 else {
            let error = Self.posixError("rename to \(url.path)")
            unlink(temporary.path)
            throw error
        }
    }

    /// Deletes the file.
    ///
    /// - Throws: `POSIXError` when it exists and cannot be deleted.
    public func remove() throws {
        if unlink(url.path) != 0, errno != ENOENT { throw Self.posixError("unlink \(url.path)") }
    }

    private static func posixError(_ call: String) -> POSIXError {
        let code = POSIXErrorCode(rawValue: errno) ?? .EIO
        return POSIXError(code, userInfo: [NSLocalizedDescriptionKey: "\(call): \(String(cString: strerror(errno)))"])
    }
}
