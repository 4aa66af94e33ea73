import Foundation
import NIOCore
import NIOPosix
import StratusTesting
import Synchronization
import Testing

/// The fault proxy keeps each direction's bytes in order through a delay and its end, as TCP
/// does: a chunk that comes after a delay ended never overtakes the chunks still held.
@Suite(.timeLimit(.minutes(1))) struct FaultProxyOrderTests {
    /// What a channel read, in order.
    final class Received: ChannelInboundHandler, Sendable {
        typealias InboundIn = ByteBuffer
        let text = Mutex("")

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            let buffer = unwrapInboundIn(data)
            text.withLock { $0 += buffer.getString(at: buffer.readerIndex, length: buffer.readableBytes) ?? "?" }
        }
    }

    /// Sleeps in each read, keeping its event loop busy.
    final class Sleeper: ChannelInboundHandler, Sendable {
        typealias InboundIn = ByteBuffer

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            Thread.sleep(forTimeInterval: 0.4)
        }
    }

    @Test func aChunkAfterADelayEndedWaitsForTheHeldOnesEvenWhenTheirWriteRunsLate() async throws {
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        let proxyGroup = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        let accepted = Mutex<(any Channel)?>(nil)
        let target = try await ServerBootstrap(group: group)
            .childChannelInitializer { channel in
                accepted.withLock { $0 = channel }
                return channel.eventLoop.makeSucceededVoidFuture()
            }
            .bind(host: "127.0.0.1", port: 0).get()
        let proxy = try await FaultProxy.start(targetPort: target.localAddress?.port ?? 0, group: proxyGroup)
        let received = Received()
        let client = try await ClientBootstrap(group: group)
            .channelInitializer { $0.pipeline.addHandler(received) }
            .connect(host: "127.0.0.1", port: proxy.port).get()
        var server: (any Channel)?
        for _ in 0..<500 where server == nil {
            try await Task.sleep(for: .milliseconds(10))
            server = accepted.withLock { $0 }
        }
        guard let server else {
            Issue.record("the proxy never connected to the target")
            return
        }

        // A channel on the proxy's event loop whose reads take 400 ms.
        let sleeper = try await ServerBootstrap(group: proxyGroup)
            .childChannelInitializer { $0.pipeline.addHandler(Sleeper()) }
            .bind(host: "127.0.0.1", port: 0).get()
        let poke = try await ClientBootstrap(group: group)
            .connect(host: "127.0.0.1", port: sleeper.localAddress?.port ?? 0).get()
        try await Task.sleep(for: .milliseconds(50))

        // "A" is held for 300 ms; then the delay ends.
        proxy.delay(by: .milliseconds(300))
        try await server.writeAndFlush(ByteBuffer(string: "A")).get()
        try await Task.sleep(for: .milliseconds(50))
        proxy.resume()
        // While the proxy's loop is busy (ending well before A's time), a byte for the sleeper
        // and then "B" arrive: the loop reads both in one go, the sleeper's first, so "B" is
        // read after A's time but before A's write ran.
        let busy = Mutex(false)
        proxyGroup.next().execute {
            busy.withLock { $0 = true }
            Thread.sleep(forTimeInterval: 0.1)
        }
        while !busy.withLock({ $0 }) { try await Task.sleep(for: .milliseconds(1)) }
        try await poke.writeAndFlush(ByteBuffer(string: "x")).get()
        try await server.writeAndFlush(ByteBuffer(string: "B")).get()
        for _ in 0..<500 where received.text.withLock({ $0.count }) < 2 {
            try await Task.sleep(for: .milliseconds(10))
        }
        // A proxy that wrote a chunk at once whenever its time had come, held ones or not,
        // delivered "BA".
        #expect(received.text.withLock { $0 } == "AB")

        try await client.close()
        try await poke.close()
        try await sleeper.close()
        await proxy.stop()
        try await target.close()
        try await group.shutdownGracefully()
        try await proxyGroup.shutdownGracefully()
    }
}
