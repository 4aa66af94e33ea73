/// A DataStore failure, with a message that names the model, the field and what to do.
public struct DataStoreError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What kind of failure this is.
    public struct Code: Sendable, Hashable, CustomStringConvertible {
        let rawValue: String
        public var description: String { rawValue }

        public static let configuration = Code(rawValue: "configuration")
        public static let invalidModel = Code(rawValue: "invalidModel")
        public static let invalidCondition = Code(rawValue: "invalidCondition")
        public static let conditionalSaveFailed = Code(rawValue: "conditionalSaveFailed")
        public static let unregisteredModel = Code(rawValue: "unregisteredModel")
        public static let invalidDatabase = Code(rawValue: "invalidDatabase")
        public static let invalidOperation = Code(rawValue: "invalidOperation")
        public static let storage = Code(rawValue: "storage")
    }

    public let code: Code
    /// What went wrong and what to do.
    public let message: String

    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    public var description: String { message }
}
