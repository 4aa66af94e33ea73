import GraphQL
import Synchronization

/// Requests that parsed and validated, by their text, so a client repeating a query skips both.
///
/// Clients send the same few documents over and over with different variables; parsing and
/// validating them again is most of the cost of a small query. The cache holds at most
/// `capacity` documents and starts afresh when full.
final class DocumentCache: Sendable {
    /// A parsed document; nothing mutates it once parsed.
    private struct Entry: @unchecked Sendable {
        let document: Document
    }

    private let capacity: Int
    private let entries = Mutex<[String: Entry]>([:])

    init(capacity: Int = 256) {
        self.capacity = capacity
    }

    /// The valid document of `query`, if it was seen.
    subscript(query: String) -> Document? {
        entries.withLock { $0[query]?.document }
    }

    /// Remembers that `query` parses to `document`, which validated.
    func insert(_ document: Document, for query: String) {
        entries.withLock { entries in
            if entries.count >= capacity { entries.removeAll(keepingCapacity: true) }
            entries[query] = Entry(document: document)
        }
    }
}
