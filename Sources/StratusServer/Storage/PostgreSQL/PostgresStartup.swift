import Logging
import NIOCore
import NIOPosix
import PostgresNIO

/// Waiting for PostgreSQL when a store opens: a database that is starting, restarting or not
/// reachable yet is tried again until the location's ``PostgresLocation/startupWait`` has
/// passed, with a line for the operator, rather than failing the start (or, as PostgresNIO's
/// pool does, waiting without a word for as long as it stays away).
enum PostgresStartup {
    /// Returns once `location` accepts a connection.
    ///
    /// - Parameter report: Told once a second or so why the database is not reached yet.
    /// - Throws: ``PostgresUnreachable`` when the failure is not one that waiting mends, or when
    ///   the wait is over.
    static func waitUntilReachable(
        _ location: PostgresLocation,
        logger: Logger,
        report: (String) -> Void
    ) async throws(StorageError) {
        let clock = ContinuousClock()
        let start = clock.now
        var delay = Duration.milliseconds(50)
        var lastReport: ContinuousClock.Instant?
        while true {
            let failure: any Error
            do {
                var configuration = try location.connectionConfiguration()
                configuration.options.connectTimeout = .seconds(5)
                let connection = try await PostgresConnection.connect(
                    configuration: configuration,
                    id: 0,
                    logger: logger
                )
                // A connection that fails to close is gone all the same.
                try? await connection.close()
                return
            } catch {
                failure = error
            }
            let waited = clock.now - start
            guard isTransient(failure), waited < location.startupWait else {
                throw StorageError.database(
                    PostgresUnreachable(
                        location: location,
                        failure: StorageError.postgres(failure),
                        waited: isTransient(failure) && location.startupWait > .zero ? location.startupWait : nil
                    )
                )
            }
            if lastReport.map({ clock.now - $0 >= .seconds(1) }) ?? true {
                lastReport = clock.now
                report(
                    "PostgreSQL at \(location) does not accept connections yet (\(reason(failure))); trying again "
                        + "for up to \(location.startupWait) (--database-wait sets how long)."
                )
            }
            // Cancelled, the wait ends with the failure at the next check.
            try? await Task.sleep(for: min(delay, location.startupWait - waited))
            if Task.isCancelled {
                throw StorageError.database(
                    PostgresUnreachable(location: location, failure: StorageError.postgres(failure))
                )
            }
            delay = min(delay * 2, .seconds(1))
        }
    }

    /// Whether waiting may mend `error`: the database refuses or drops connections, or says it
    /// is starting, shutting down or full; not a refused password, a missing database or a TLS
    /// mismatch, which stay as they are.
    static func isTransient(_ error: any Error) -> Bool {
        if error is PostgresConnectionClosed { return true }
        if let error = error as? NIOConnectionError {
            // A name that does not resolve stays unresolved: a typo, not a start.
            return !error.connectionErrors.isEmpty
        }
        if error is IOError || error is ChannelError { return true }
        guard let error = error as? PSQLError else { return false }
        switch error.code {
        case .connectionError:
            return error.underlying.map(isTransient) ?? true
        case .serverClosedConnection, .uncleanShutdown:
            return true
        case .server:
            // cannot_connect_now (starting up), admin_shutdown, crash_shutdown,
            // too_many_connections, and the connection exceptions.
            let state = error.serverInfo?[.sqlState] ?? ""
            return ["57P03", "57P01", "57P02", "53300", "08000", "08001", "08004", "08006"].contains(state)
        default:
            return false
        }
    }

    /// What went wrong, for the waiting line: the server's message when there is one.
    private static func reason(_ error: any Error) -> String {
        if let error = error as? PSQLError {
            if let message = error.serverInfo?[.message] { return message }
            if let underlying = error.underlying { return reason(underlying) }
        }
        if let error = error as? NIOConnectionError, !error.connectionErrors.isEmpty {
            return error.connectionErrors.map { String(describing: $0.error) }.joined(separator: "; ")
        }
        return String(describing: error)
    }
}
