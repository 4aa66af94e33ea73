import GraphQL
import Synchronization

/// Requests that parsed and validated, by their text, so a client repeating a query skips both.
///
/// Clients send the same few documents over and over with different variables; parsing and
/// validating them again is most of the cost of a small query. The cache holds at most
/// `capacity` documents and starts afresh when full.
package final class DocumentCache: Sendable {
    /// A parsed document; nothing mutates it once parsed.
    private struct Entry: @unchecked Sendable {
        let document: Document
    }

    /// How often a document was found, and how often it had to be parsed and validated.
    package struct Statistics: Sendable, Hashable {
        package var hits: Int
        package var misses: Int

        package init(hits: Int = 0, misses: Int = 0) {
            self.hits = hits
            self.misses = misses
        }
    }

    private let capacity: Int
    private let entries = Mutex<[String: Entry]>([:])
    private let counts = Mutex(Statistics())

    /// The lookups so far.
    package var statistics: Statistics { counts.withLock { $0 } }

    init(capacity: Int = 256) {
        self.capacity = capacity
    }

    /// The valid document of `query`, if it was seen.
    subscript(query: String) -> Document? {
        let document = entries.withLock { $0[query]?.document }
        counts.withLock { document == nil ? ($0.misses += 1) : ($0.hits += 1) }
        return document
    }

    /// Remembers that `query` parses to `document`, which validated.
    func insert(_ document: Document, for query: String) {
        entries.withLock { entries in
            if entries.count >= capacity { entries.removeAll(keepingCapacity: true) }
            entries[query] = Entry(document: document)
        }
    }
}
