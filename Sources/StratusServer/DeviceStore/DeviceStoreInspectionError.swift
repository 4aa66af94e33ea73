/// Why a file could not be inspected as a device's store: the message names the file, the
/// problem and what to do.
public struct DeviceStoreInspectionError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The kind of problem.
    public struct Code: Sendable, Hashable, CustomStringConvertible {
        private let name: String

        /// No file at the path.
        public static let fileMissing = Code(name: "fileMissing")
        /// The path is a directory.
        public static let directory = Code(name: "directory")
        /// The file is not a DataStore or AppSync client database.
        public static let notAStore = Code(name: "notAStore")
        /// The file was written by a newer version than this one reads.
        public static let newerFormat = Code(name: "newerFormat")
        /// The file could not be read: permissions, a lock held too long, corruption.
        public static let unreadable = Code(name: "unreadable")

        public var description: String { name }
    }

    /// The kind of problem.
    public let code: Code
    /// What went wrong and what to do.
    public let message: String

    init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    public var description: String { message }
}
