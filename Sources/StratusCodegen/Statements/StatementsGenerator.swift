// Temporary
public struct StatementsGenerator: Sendable {
    public init(maxDepth: Int = 2, conflictDetection: Bool = true) {}
    public func generate(_ schema: AnnotatedSchema) -> [GeneratedFile] { [] }
}
