import Foundation

extension StratusServer {
    /// Deletes a data directory with every item, tombstone and the sync journal, unless a server
    /// has it open. A directory that does not exist is left so.
    ///
    /// ```swift
    /// try StratusServer.deleteData(in: URL(filePath: ".stratus"))
    /// ```
    ///
    /// - Throws: ``ServerError`` naming the directory and the process that holds it when a
    ///   server has it open (then nothing is deleted), or when it cannot be deleted.
    public static func deleteData(in directory: URL) throws(ServerError) {
        guard FileManager.default.fileExists(atPath: directory.path) else { return }
        do throws(StorageError) {
            let lock = try DataDirectoryLock(directory: directory)
            defer { lock.release() }
            do {
                try FileManager.default.removeItem(at: directory)
            } catch {
                throw StorageError.database(error)
            }
        } catch {
            throw ServerError.storage(error)
        }
    }
}
