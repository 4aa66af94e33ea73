import Foundation
import StratusCodegen
import StratusServer

extension Backend {
    /// Serves `schema` from now on, without a restart: the listener keeps its port and the
    /// real-time connections stay open, their subscriptions hearing the writes made after.
    ///
    /// The store follows the schema by the rules of opening it (``SchemaChange``): a change that
    /// would lose data is refused and the previous schema keeps serving, its data untouched.
    /// Requests that came before the reload finish on the previous server; those that come
    /// while it runs wait for it. Only a data directory reloads: servers sharing a database
    /// each hold the schema they were started with.
    ///
    /// ```swift
    /// let changes = try await backend.reload(schema: try SchemaParser().parse(edited))
    /// print(changes.map(\.description))  // ["added model Note"]
    /// ```
    ///
    /// - Parameters:
    ///   - schema: The new annotated schema.
    ///   - server: The conflict handling, TTLs, page sizes and resolvers to serve it with; the
    ///     configuration's when `nil`.
    /// - Returns: The schema changes the store migrated; empty when the stored shape is the same.
    /// - Throws: ``BackendError/reloadNeedsDataDirectory(store:)`` on a database, and
    ///   ``BackendError/store(_:)`` when the new schema cannot be served (its
    ///   ``ServerError/refusedSchemaChanges`` list a change that would lose data); the previous
    ///   schema serves on.
    @discardableResult
    public func reload(
        schema: AnnotatedSchema,
        server serverConfiguration: ServerConfiguration? = nil
    ) async throws(BackendError) -> [SchemaChange] {
        var next = configuration
        guard case .dataDirectory(let directory) = next.store else {
            throw .reloadNeedsDataDirectory(store: server.storeDescription)
        }
        next.schema = schema
        if let serverConfiguration {
            next.server = serverConfiguration
            // The console's record of function invocations goes on across the reload.
            if next.server.functionInvocations == nil {
                next.server.functionInvocations = configuration.server.functionInvocations
            }
        }
        do {
            try StratusServer.checkResolvers(of: schema, configuration: next.server)
        } catch {
            throw .store(error)
        }
        // The directory is one server's at a time: the previous one closes before the next opens.
        let previous = await http.current.pause()
        do {
            try previous.close()
        } catch {
            http.current.resume(with: previous)
            throw .store(error)
        }
        let opened: StratusServer
        do {
            opened = try Self.open(next, in: directory, after: previous)
        } catch {
            let current = configuration
            do {
                http.current.resume(with: try Self.open(current, in: directory, after: previous))
            } catch let reopening {
                // Requests are answered with the store's error until a reload succeeds.
                current.log("Reopening \(directory.path) after a refused reload failed: \(reopening)")
                http.current.resume(with: previous)
            }
            throw error
        }
        assembled.withLock { $0 = next }
        http.current.resume(with: opened)
        let known = Set(previous.api.warnings + previous.resolverNotices)
        for warning in opened.api.warnings + opened.resolverNotices where !known.contains(warning) {
            next.notice(warning)
        }
        return opened.appliedSchemaChanges
    }

    /// The server of `configuration` on `directory`, publishing to the subscribers of
    /// `previous`, which is closed.
    private static func open(
        _ configuration: Configuration,
        in directory: URL,
        after previous: StratusServer
    ) throws(BackendError) -> StratusServer {
        do {
            return try StratusServer(
                schema: configuration.schema,
                configuration: configuration.server,
                dataDirectory: directory,
                clock: configuration.clock,
                log: configuration.log,
                sharingSubscriptionsOf: previous
            )
        } catch {
            throw .store(error)
        }
    }
}

/// Files a backend reloads its schema from (``Backend/watch(_:every:load:report:)``), with their
/// contents when the value was made: a change is a change from those.
///
/// Made before the schema is read from the files, so that an edit made while the backend starts
/// is not missed.
public struct WatchedFiles: Sendable {
    public let urls: [URL]
    let contents: [Data?]

    /// The files at `urls`, read now.
    public init(_ urls: [URL]) {
        self.urls = urls
        contents = Self.read(urls)
    }

    /// What each file holds; `nil` for one that cannot be read, which is a change too: the
    /// schema's loader then says why it cannot read it.
    static func read(_ urls: [URL]) -> [Data?] {
        urls.map { try? Data(contentsOf: $0) }
    }
}

extension Backend {
    /// Reloads the schema whenever one of `files` changes, until the task is cancelled: `load`
    /// reads the schema (and the server configuration, `nil` to keep it) from them, and `report`
    /// hears each outcome: the changes migrated, or why the previous schema still serves (a
    /// schema that does not parse, a change that would lose data; see
    /// ``reload(schema:server:)``).
    ///
    /// The files are read every `interval`; a change is a change of their contents, so a file
    /// saved unchanged reloads nothing, and it is acted on once two reads agree, so that a file
    /// caught half written (emptied, then written) is not reported as broken.
    public func watch(
        _ files: WatchedFiles,
        every interval: Duration = .milliseconds(500),
        load: @escaping @Sendable () throws -> (schema: AnnotatedSchema, server: ServerConfiguration?),
        report: @escaping @Sendable (Result<[SchemaChange], any Error>) -> Void
    ) async {
        var seen = files.contents
        var read = seen
        while (try? await Task.sleep(for: interval)) != nil {
            let now = WatchedFiles.read(files.urls)
            defer { read = now }
            guard now != seen, now == read else { continue }
            seen = now
            do {
                let loaded = try load()
                report(.success(try await reload(schema: loaded.schema, server: loaded.server)))
            } catch {
                report(.failure(error))
            }
        }
    }
}
