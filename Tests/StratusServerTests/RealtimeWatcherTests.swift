import Foundation
import NIOCore
import NIOEmbedded
import Testing

@testable import StratusServer

/// The watcher of an event loop's real-time connections: one repeated task of the loop sends
/// `ka`, times out silent connections and stops when no connection is left. The watcher reads
/// the real clock, which an embedded loop's time does not move: the tests wait for real before
/// they run the loop's task.
@Suite struct RealtimeWatcherTests {
    /// The protocol messages waiting in `connection`'s queue, as text; `close` for a close.
    static func pending(_ connection: RealtimeConnection) -> [String] {
        connection.takePending().map { element in
            element.bytes.map { String(buffer: $0) } ?? "close"
        }
    }

    @Test func oneTaskSendsKeepAlivesToEveryAcknowledgedConnectionAndStopsWithTheLast() throws {
        let loop = EmbeddedEventLoop()
        defer { try? loop.syncShutdownGracefully() }
        let limits = RealtimeLimits(keepAliveInterval: .milliseconds(100))
        let watcher = RealtimeWatcher(eventLoop: loop, limits: limits)
        let connections = (0..<3).map { _ in RealtimeConnection(limits: limits) }
        for connection in connections {
            connection.acknowledge()
            _ = Self.pending(connection)  // connection_ack and the first ka
            watcher.add(connection, channel: EmbeddedChannel(loop: loop))
        }
        #expect(watcher.count == 3)

        Thread.sleep(forTimeInterval: 0.15)
        loop.advanceTime(by: .milliseconds(100))
        for connection in connections {
            #expect(Self.pending(connection) == [#"{"type":"ka"}"#])
        }
        // An unacknowledged connection gets none.
        let silent = RealtimeConnection(limits: limits)
        watcher.add(silent, channel: EmbeddedChannel(loop: loop))
        Thread.sleep(forTimeInterval: 0.15)
        loop.advanceTime(by: .milliseconds(100))
        #expect(Self.pending(silent).isEmpty)
        for connection in connections {
            #expect(Self.pending(connection) == [#"{"type":"ka"}"#])
        }

        for connection in connections + [silent] { watcher.remove(connection) }
        #expect(watcher.count == 0)
        Thread.sleep(forTimeInterval: 0.15)
        loop.advanceTime(by: .milliseconds(500))
        for connection in connections {
            #expect(Self.pending(connection).isEmpty, "a connection no longer watched gets no ka")
        }
    }

    @Test func aConnectionWhoseClientSendsNothingIsClosedOnce() throws {
        let loop = EmbeddedEventLoop()
        defer { try? loop.syncShutdownGracefully() }
        let limits = RealtimeLimits(connectionTimeout: .milliseconds(500), keepAliveInterval: .seconds(60))
        let watcher = RealtimeWatcher(eventLoop: loop, limits: limits)
        let quiet = RealtimeConnection(limits: limits)
        let talking = RealtimeConnection(limits: limits)
        watcher.add(quiet, channel: EmbeddedChannel(loop: loop))
        watcher.add(talking, channel: EmbeddedChannel(loop: loop))
        Thread.sleep(forTimeInterval: 0.6)
        talking.noteTraffic()
        loop.advanceTime(by: .milliseconds(250))
        #expect(Self.pending(quiet) == ["close"])
        #expect(Self.pending(talking).isEmpty)
        #expect(watcher.count == 1)
        loop.advanceTime(by: .milliseconds(250))
        #expect(Self.pending(quiet).isEmpty, "closed once")
    }
}
