/// A file a generator produced: a path relative to the output directory, and its text.
///
/// Generators return files rather than writing them, so that the command-line tool decides where
/// they go and tests compare them as text.
public struct GeneratedFile: Sendable, Hashable {
    /// Where the file goes, relative to the output directory: `Post.swift`, `queries.graphql`.
    public var path: String
    /// The file's text.
    public var contents: String

    /// A file at `path` holding `contents`.
    public init(path: String, contents: String) {
        self.path = path
        self.contents = contents
    }
}
