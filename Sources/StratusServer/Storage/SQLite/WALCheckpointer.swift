import GRDB
import Synchronization

/// Checkpoints the store's WAL database from a connection and a thread of its own, so that no
/// write waits for a checkpoint.
///
/// Left to itself, SQLite checkpoints a WAL database in the commit that takes the log past
/// 1,000 pages: that commit waits for the pages to be copied and for two `fsync`s, and so does
/// every write queued behind it. A mutation that happens to commit then answers, and its
/// subscribers hear of it, tens to hundreds of milliseconds late. The store's connections
/// leave that to a far larger log (``fallbackPages``, a bound the log reaches only when this
/// checkpointer cannot keep up), and the writer calls ``noteCommits(_:)`` after each commit:
/// every ``commitsPerCheckpoint`` commits, a passive checkpoint runs here, which waits for no
/// reader and no writer.
///
/// A checkpoint that fails loses nothing: the pages stay in the log, for the next checkpoint.
final class WALCheckpointer: Sendable {
    /// Commits between two checkpoints: at a few pages per commit, about the 1,000 pages after
    /// which SQLite would checkpoint.
    static let commitsPerCheckpoint = 256

    /// The log's size, in pages, past which a commit checkpoints anyway, as SQLite does at
    /// 1,000 pages when no checkpointer runs.
    static let fallbackPages = 10_000

    private struct State {
        var commits = 0
        var scheduled = false
        var closed = false
        var checkpoints = 0
        var lastError: String?
    }

    private let connection: DatabaseQueue
    private let state = Mutex(State())

    /// A checkpointer of the WAL database at `path`, which must exist.
    ///
    /// - Throws: The error of opening the connection.
    init(path: String) throws {
        var configuration = Configuration()
        configuration.busyMode = .timeout(10)
        configuration.label = "StratusServer.WALCheckpointer"
        connection = try DatabaseQueue(path: path, configuration: configuration)
    }

    /// Prepares a connection of the store: its commits leave checkpoints to this checkpointer
    /// until the log reaches ``fallbackPages``.
    static func prepare(_ db: Database) throws {
        try db.execute(sql: "PRAGMA wal_autocheckpoint = \(fallbackPages)")
    }

    /// Counts `count` commits, and starts a checkpoint when they make ``commitsPerCheckpoint``
    /// since the last one and none is under way.
    func noteCommits(_ count: Int = 1) {
        let starts = state.withLock { state in
            state.commits += count
            return Self.claimCheckpoint(&state)
        }
        if starts { checkpoint() }
    }

    /// Whether a checkpoint is due and none is under way; if so, it is marked under way.
    private static func claimCheckpoint(_ state: inout State) -> Bool {
        guard !state.closed, !state.scheduled, state.commits >= commitsPerCheckpoint else { return false }
        state.commits = 0
        state.scheduled = true
        return true
    }

    /// Runs a passive checkpoint on the checkpointer's connection, then the next one at once if
    /// the commits made meanwhile call for it: a burst of commits during a checkpoint would
    /// otherwise wait for the next commit to be checkpointed.
    private func checkpoint() {
        connection.asyncWriteWithoutTransaction { db in
            // Closed since it was started: it neither runs nor counts.
            guard !self.state.withLock({ $0.closed }) else { return }
            var failure: String?
            do {
                try db.checkpoint(.passive)
            } catch {
                failure = "\(error)"
            }
            let again = self.state.withLock { state in
                state.scheduled = false
                state.checkpoints += 1
                if let failure { state.lastError = failure }
                return Self.claimCheckpoint(&state)
            }
            if again { self.checkpoint() }
        }
    }

    /// How many checkpoints ran, and the error of the last one that failed, for tests.
    var status: (checkpoints: Int, lastError: String?) {
        state.withLock { ($0.checkpoints, $0.lastError) }
    }

    /// Starts no more checkpoints, waits for the one under way, and closes the connection.
    ///
    /// - Throws: The error of closing the connection.
    func close() throws {
        state.withLock { $0.closed = true }
        try connection.close()
    }
}
