import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The data directory is its owner's alone: it holds the key that signs the local Cognito's
/// tokens, the users' password verifiers, the API key and every item. The directory has mode
/// 0700 and its files 0600, whatever the umask of the process that created them.
///
/// SQLite gives a database's `-wal`, `-shm` and `-journal` files the mode of the database file,
/// so a database file created here first (``createFile(atPath:)``) keeps them private too.
///
/// A directory found with a wider mode (made by an earlier version, or by hand) is narrowed when
/// it is opened, with a warning naming each path and the mode it had; when a mode cannot be
/// changed (the directory belongs to another user), the directory is refused with the command
/// that fixes it.
package enum PrivateDataDirectory {
    /// The mode of the data directory: its owner reads, writes and lists it.
    package static let directoryMode: mode_t = 0o700
    /// The mode of every file in it: its owner reads and writes it.
    package static let fileMode: mode_t = 0o600

    /// Creates `directory` (and its parents) unless it exists, then narrows its mode and the
    /// modes of the files in it.
    ///
    /// - Returns: One warning per path whose mode was wider, saying the mode it had.
    /// - Throws: ``StorageError`` when the directory cannot be created, or a mode cannot be
    ///   changed (the message gives the command that fixes it).
    package static func prepare(_ directory: URL) throws(StorageError) -> [String] {
        let path = directory.path(percentEncoded: false)
        if try create(directory) { return [] }
        var warnings: [String] = []
        if let warning = try narrow(path, to: directoryMode, kind: "directory", warn: true) {
            warnings.append(warning)
        }
        let names: [String]
        do {
            names = try FileManager.default.contentsOfDirectory(atPath: path).sorted()
        } catch {
            throw StorageError.database(error)
        }
        for name in names {
            let file = directory.appending(path: name).path(percentEncoded: false)
            var status = stat()
            // Symbolic links and subdirectories are left as they are: only regular files hold data.
            guard lstat(file, &status) == 0, status.st_mode & S_IFMT == S_IFREG else { continue }
            if let warning = try narrow(file, to: fileMode, kind: "file", warn: true) { warnings.append(warning) }
        }
        return warnings
    }

    /// Creates `directory` (and its parents) with mode 0700 unless it exists.
    ///
    /// - Returns: Whether it created the directory.
    /// - Throws: ``StorageError`` when the directory cannot be created.
    @discardableResult
    package static func create(_ directory: URL) throws(StorageError) -> Bool {
        let path = directory.path(percentEncoded: false)
        guard !FileManager.default.fileExists(atPath: path) else { return false }
        do {
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        } catch {
            throw StorageError.database(error)
        }
        // `chmod` is not subject to the umask: the new directory is 0700 whatever it is.
        try narrow(path, to: directoryMode, kind: "directory", warn: false)
        return true
    }

    /// Creates an empty file at `path` with mode 0600 unless it exists; an existing file keeps
    /// its content (its mode is ``prepare(_:)``'s business).
    ///
    /// - Throws: ``StorageError`` when the file cannot be created.
    package static func createFile(atPath path: String) throws(StorageError) {
        let file = open(path, O_RDWR | O_CREAT | O_CLOEXEC, fileMode)
        guard file >= 0 else {
            throw StorageError(reason: .database("Cannot create '\(path)': \(String(cString: strerror(errno)))"))
        }
        defer { close(file) }
        var status = stat()
        // A file this call created has the mode the umask left; `fchmod` is not subject to it.
        if fstat(file, &status) == 0, status.st_size == 0, status.st_mode & 0o777 != fileMode {
            guard fchmod(file, fileMode) == 0 else {
                throw StorageError(
                    reason: .database("Cannot set the mode of '\(path)' to 0600: \(String(cString: strerror(errno)))")
                )
            }
        }
    }

    /// Writes `data` to `file` with mode 0600, replacing it atomically: a reader finds the old
    /// content or the new, never a part.
    ///
    /// - Throws: ``StorageError`` when the file cannot be written.
    package static func replaceFile(at file: URL, with data: Data) throws(StorageError) {
        let path = file.path(percentEncoded: false)
        let temporary = path + ".\(getpid()).tmp"
        let descriptor = open(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, fileMode)
        guard descriptor >= 0 else {
            throw StorageError(reason: .database("Cannot write '\(path)': \(String(cString: strerror(errno)))"))
        }
        let written = data.withUnsafeBytes { bytes in
            fchmod(descriptor, fileMode) == 0
                && (bytes.isEmpty || write(descriptor, bytes.baseAddress, bytes.count) == bytes.count)
        }
        let failure = errno
        close(descriptor)
        guard written, rename(temporary, path) == 0 else {
            let reason = String(cString: strerror(written ? errno : failure))
            unlink(temporary)
            throw StorageError(reason: .database("Cannot write '\(path)': \(reason)"))
        }
    }

    /// Narrows the mode of `path` to `mode` when it grants more; the warning saying so when
    /// `warn` is set.
    @discardableResult
    private static func narrow(
        _ path: String,
        to mode: mode_t,
        kind: String,
        warn: Bool
    ) throws(StorageError)
        -> String?
    {
        var status = stat()
        guard stat(path, &status) == 0 else {
            throw StorageError(
                reason: .database("Cannot read the mode of '\(path)': \(String(cString: strerror(errno)))")
            )
        }
        let current = status.st_mode & 0o777
        guard current & ~mode != 0 else { return nil }
        guard chmod(path, current & mode) == 0 else {
            throw StorageError.unprotected(
                path,
                kind: kind,
                mode: current,
                wanted: mode,
                problem: String(cString: strerror(errno))
            )
        }
        guard warn else { return nil }
        return "Warning: the data \(kind) '\(path)' had mode \(octal(current)), which lets other users "
            + "\(kind == "directory" ? "list and read it" : "read it"); its mode is now \(octal(current & mode))."
    }

    static func octal(_ mode: mode_t) -> String {
        "0" + String(mode, radix: 8)
    }
}
