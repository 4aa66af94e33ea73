import Foundation
import NIOSSL
import PostgresNIO

/// Where a PostgreSQL database is, as a connection URL:
/// `postgres://user[:password]@host[:port]/database[?sslmode=disable|prefer|require]`.
///
/// ```swift
/// let location = try PostgresLocation("postgres://stratus@127.0.0.1:5432/app")
/// ```
public struct PostgresLocation: Sendable, Hashable, CustomStringConvertible {
    /// How the connection uses TLS, as libpq's `sslmode` says it.
    public enum TLSMode: String, Sendable, Hashable {
        /// Never.
        case disable
        /// When the server offers it (libpq's default).
        case prefer
        /// Always; the connection fails without it.
        case require
    }

    public var host: String
    public var port: Int
    public var username: String
    public var password: String?
    public var database: String
    public var tlsMode: TLSMode
    /// How long opening a store waits for the database to accept connections, when it is
    /// starting, restarting or not reachable yet: 30 s unless set. A refusal that waiting cannot
    /// mend (a wrong password, a database that does not exist) fails at once, and so does any
    /// failure when the wait is zero.
    public var startupWait: Duration = .seconds(30)

    /// Parses a connection URL.
    ///
    /// - Throws: `StorageError.invalidDatabaseURL(_:_:)` naming what is missing or wrong.
    public init(_ url: String) throws(StorageError) {
        guard let components = URLComponents(string: url),
            let scheme = components.scheme, ["postgres", "postgresql"].contains(scheme)
        else {
            throw StorageError.invalidDatabaseURL(
                url,
                "it is not a postgres:// URL (postgres://user@host:port/database)"
            )
        }
        guard let host = components.host, !host.isEmpty else {
            throw StorageError.invalidDatabaseURL(url, "it names no host")
        }
        guard let user = components.user, !user.isEmpty else {
            throw StorageError.invalidDatabaseURL(url, "it names no user (postgres://user@host/database)")
        }
        let database = String(components.path.drop { $0 == "/" })
        guard !database.isEmpty else {
            throw StorageError.invalidDatabaseURL(url, "it names no database (postgres://user@host/database)")
        }
        var tlsMode = TLSMode.prefer
        for item in components.queryItems ?? [] {
            guard item.name == "sslmode" else {
                throw StorageError.invalidDatabaseURL(
                    url,
                    "the parameter '\(item.name)' is not known (only sslmode is)"
                )
            }
            guard let mode = item.value.flatMap(TLSMode.init(rawValue:)) else {
                throw StorageError.invalidDatabaseURL(
                    url,
                    "sslmode '\(item.value ?? "")' is not one of disable, prefer, require"
                )
            }
            tlsMode = mode
        }
        self.host = host
        self.port = components.port ?? 5432
        self.username = user.removingPercentEncoding ?? user
        self.password = components.password.map { $0.removingPercentEncoding ?? $0 }
        self.database = database.removingPercentEncoding ?? database
        self.tlsMode = tlsMode
    }

    /// The URL without its password.
    public var description: String {
        "postgres://\(username)@\(host):\(port)/\(database)"
    }

    /// The client configuration of the location, with at most `connections` connections.
    package func configuration(connections: Int) -> PostgresClient.Configuration {
        let tls: PostgresClient.Configuration.TLS =
            switch tlsMode {
            case .disable: .disable
            case .prefer: .prefer(.makeClientConfiguration())
            case .require: .require(.makeClientConfiguration())
            }
        var configuration = PostgresClient.Configuration(
            host: host,
            port: port,
            username: username,
            password: password,
            database: database,
            tls: tls
        )
        configuration.options.maximumConnections = connections
        return configuration
    }

    /// The configuration of a connection of its own, outside any pool.
    ///
    /// - Throws: when the TLS context cannot be made.
    func connectionConfiguration() throws -> PostgresConnection.Configuration {
        let tls: PostgresConnection.Configuration.TLS =
            switch tlsMode {
            case .disable: .disable
            case .prefer: .prefer(try NIOSSLContext(configuration: .makeClientConfiguration()))
            case .require: .require(try NIOSSLContext(configuration: .makeClientConfiguration()))
            }
        return PostgresConnection.Configuration(
            host: host,
            port: port,
            username: username,
            password: password,
            database: database,
            tls: tls
        )
    }
}
