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
///
/// While the directory was open to others, another user could have planted a data file: a
/// symbolic link named `cognito.sqlite` to a file of theirs, or a file of their own. Once the
/// directory is narrowed nobody else can add or rename its entries, so the data files are checked
/// after that: a link, or a file of another user, where a data file belongs is refused with the
/// path and the fix; the files the server creates are opened with `O_NOFOLLOW`; and a database
/// that SQLite opens by its path is checked again once open (``checkUnchanged(_:atPath:)``).
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
            guard lstat(file, &status) == 0 else { continue }
            if isDataFile(name) { try check(status, of: file) }
            // Other links and subdirectories are left as they are: only regular files hold data.
            guard status.st_mode & S_IFMT == S_IFREG else { continue }
            if let warning = try narrow(file, to: fileMode, kind: "file", warn: true) { warnings.append(warning) }
        }
        return warnings
    }

    /// Whether `name` is a file the server keeps in a data directory: the databases with their
    /// `-wal`, `-shm` and `-journal` files, the lock and the API key.
    static func isDataFile(_ name: String) -> Bool {
        name == "stratus.lock" || name == "api-key" || name.hasPrefix("stratus.sqlite")
            || name.hasPrefix("cognito.sqlite")
    }

    /// Refuses the data file at `path`, whose `lstat` is `status`, unless it is a regular file of
    /// the user the server runs as.
    ///
    /// - Throws: ``StorageError`` naming the link, the owner or the kind of file, and the fix.
    private static func check(_ status: stat, of path: String) throws(StorageError) {
        switch status.st_mode & S_IFMT {
        case S_IFREG:
            guard status.st_uid == geteuid() else {
                throw StorageError.unsafeDataFile(path, .foreign(owner: status.st_uid, server: geteuid()))
            }
        case S_IFLNK:
            throw StorageError.unsafeDataFile(path, .link(target: linkTarget(path)))
        default:
            throw StorageError.unsafeDataFile(path, .notRegular)
        }
    }

    /// Where the symbolic link at `path` points, as it is written.
    private static func linkTarget(_ path: String) -> String {
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let count = readlink(path, &buffer, buffer.count - 1)
        guard count >= 0 else { return "unreadable: \(String(cString: strerror(errno)))" }
        return String(decoding: buffer[..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// The device and inode of a file: what a database opened by its path must still be.
    package struct FileIdentity: Sendable, Hashable {
        var device: UInt64
        var inode: UInt64

        init(_ status: stat) {
            device = UInt64(status.st_dev)
            inode = UInt64(status.st_ino)
        }
    }

    /// Opens `path` without following a symbolic link, refusing it unless it is a regular file
    /// of the user the server runs as.
    ///
    /// - Returns: The open descriptor and its file's `fstat`, which the caller closes; `nil` when
    ///   there is no such file.
    /// - Throws: ``StorageError`` naming the link or the owner and the fix, or why it cannot be
    ///   opened.
    private static func openChecked(_ path: String, flags: Int32) throws(StorageError) -> (Int32, stat)? {
        let file = open(path, flags | O_NOFOLLOW | O_CLOEXEC, fileMode)
        guard file >= 0 else {
            let failure = errno
            if failure == ENOENT { return nil }
            if failure == ELOOP { throw StorageError.unsafeDataFile(path, .link(target: linkTarget(path))) }
            throw StorageError(reason: .database("Cannot open '\(path)': \(String(cString: strerror(failure)))"))
        }
        var status = stat()
        guard fstat(file, &status) == 0 else {
            let failure = errno
            close(file)
            throw StorageError(reason: .database("Cannot read '\(path)': \(String(cString: strerror(failure)))"))
        }
        do {
            try check(status, of: path)
        } catch {
            close(file)
            throw error
        }
        return (file, status)
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
    /// its content, and gets mode 0600.
    ///
    /// The file is opened without following a symbolic link. A database that SQLite then opens by
    /// its path is checked once open with ``checkUnchanged(_:atPath:)``, against the identity
    /// this returns.
    ///
    /// - Returns: The file's device and inode.
    /// - Throws: ``StorageError`` when the file cannot be created, or is a symbolic link, not a
    ///   regular file, or a file of another user.
    @discardableResult
    package static func createFile(atPath path: String) throws(StorageError) -> FileIdentity {
        guard let opened = try openChecked(path, flags: O_RDWR | O_CREAT) else {
            throw StorageError(reason: .database("Cannot create '\(path)': \(String(cString: strerror(ENOENT)))"))
        }
        let (file, status) = opened
        defer { close(file) }
        // A file this call created has the mode the umask left; `fchmod` is not subject to it.
        if status.st_mode & 0o777 != fileMode {
            guard fchmod(file, fileMode) == 0 else {
                throw StorageError(
                    reason: .database("Cannot set the mode of '\(path)' to 0600: \(String(cString: strerror(errno)))")
                )
            }
        }
        return FileIdentity(status)
    }

    /// Refuses the file at `path` unless it is still the file `identity` names, and no link.
    ///
    /// SQLite opens a database by its path, with no way (through GRDB) to ask it not to follow a
    /// link, so the path is checked after it opened: ``createFile(atPath:)`` checked it just
    /// before, and the directory is private by then, so no other user can swap the file in
    /// between; this catches a process of the same user that did.
    ///
    /// - Throws: ``StorageError`` naming the path when it changed.
    package static func checkUnchanged(_ identity: FileIdentity, atPath path: String) throws(StorageError) {
        var status = stat()
        guard lstat(path, &status) == 0 else {
            throw StorageError.unsafeDataFile(path, .replaced)
        }
        try check(status, of: path)
        guard FileIdentity(status) == identity else { throw StorageError.unsafeDataFile(path, .replaced) }
    }

    /// The content of the data file at `path`; `nil` when there is none. A symbolic link or a
    /// file of another user is refused, not read.
    ///
    /// - Throws: ``StorageError`` when the file is a link, not a regular file, another user's, or
    ///   cannot be read.
    package static func readFile(atPath path: String) throws(StorageError) -> Data? {
        guard let descriptor = try openChecked(path, flags: O_RDONLY)?.0 else { return nil }
        defer { close(descriptor) }
        var data = Data()
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = read(descriptor, &buffer, buffer.count)
            guard count >= 0 else {
                throw StorageError(reason: .database("Cannot read '\(path)': \(String(cString: strerror(errno)))"))
            }
            if count == 0 { return data }
            data.append(contentsOf: buffer[..<count])
        }
    }

    /// Writes `data` to `file` with mode 0600, replacing it atomically: a reader finds the old
    /// content or the new, never a part.
    ///
    /// - Throws: ``StorageError`` when the file cannot be written.
    package static func replaceFile(at file: URL, with data: Data) throws(StorageError) {
        let path = file.path(percentEncoded: false)
        let temporary = path + ".\(getpid()).tmp"
        // A file left by a process that had this id is removed (a link itself, not its target);
        // the new one is created, never opened through a link.
        unlink(temporary)
        let descriptor = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, fileMode)
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
