import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The lock that keeps a second server off a data directory in use: an exclusive `flock` on
/// `stratus.lock` in the directory, which holds the process id of its holder.
///
/// The kernel drops an `flock` when its holder closes the file or exits, however it exits: a
/// server that crashed leaves the file and its process id behind, but no lock, and the next
/// server starts.
final class DataDirectoryLock: Sendable {
    /// The lock file in the data directory.
    static let fileName = "stratus.lock"

    /// The open lock file; -1 once released.
    private let descriptor: Mutex<Int32>

    /// Takes the lock of `directory`, which must exist.
    ///
    /// - Throws: ``StorageError`` naming the directory and the holder's process id when another
    ///   server holds the lock, or when the lock file cannot be opened.
    init(directory: URL) throws(StorageError) {
        let path = directory.appendingPathComponent(Self.fileName).path
        // Never through a link: `PrivateDataDirectory.prepare` refused one, and the directory is
        // private since.
        let file = open(path, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, PrivateDataDirectory.fileMode)
        guard file >= 0 else {
            throw StorageError(
                reason: .database("Cannot open the lock file '\(path)': \(String(cString: strerror(errno)))")
            )
        }
        guard Self.lock(file) else {
            let failure = errno
            let holder = Self.processID(in: file)
            close(file)
            if failure == EWOULDBLOCK {
                throw StorageError.inUse(directory: directory.path, processID: holder)
            }
            throw StorageError(reason: .database("Cannot lock '\(path)': \(String(cString: strerror(failure)))"))
        }
        let text = Array("\(getpid())\n".utf8)
        guard ftruncate(file, 0) == 0, pwrite(file, text, text.count, 0) == text.count else {
            let failure = errno
            close(file)
            throw StorageError(reason: .database("Cannot write '\(path)': \(String(cString: strerror(failure)))"))
        }
        descriptor = Mutex(file)
    }

    /// Lets another server open the directory.
    func release() {
        descriptor.withLock { file in
            guard file >= 0 else { return }
            close(file)
            file = -1
        }
    }

    deinit {
        release()
    }

    /// Takes the lock of `file`, trying again for a second when it is held: a child this
    /// process is starting holds a copy of every descriptor between its fork and its exec, and
    /// with it the lock of a server that just closed. A server that really holds the lock holds
    /// it longer.
    private static func lock(_ file: Int32) -> Bool {
        for attempt in 0..<20 {
            if flock(file, LOCK_EX | LOCK_NB) == 0 { return true }
            guard errno == EWOULDBLOCK, attempt < 19 else { return false }
            usleep(50_000)
        }
        return false
    }

    /// The process id the lock file holds, if it holds one.
    private static func processID(in file: Int32) -> Int32? {
        var buffer = [UInt8](repeating: 0, count: 32)
        let count = pread(file, &buffer, buffer.count, 0)
        guard count > 0 else { return nil }
        return Int32(String(decoding: buffer[..<count], as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines))
    }
}
