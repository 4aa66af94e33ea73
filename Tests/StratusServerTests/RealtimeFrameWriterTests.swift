import NIOCore
import NIOEmbedded
import NIOWebSocket
import Testing

@testable import StratusServer

/// The frames the real-time writer makes in place of NIO's encoder, checked against the bytes
/// that encoder writes for the same messages.
@Suite struct RealtimeFrameWriterTests {
    /// A message of `length` bytes.
    static func message(length: Int) -> ByteBuffer {
        ByteBuffer(bytes: (0..<length).map { UInt8(truncatingIfNeeded: $0 % 26) + UInt8(ascii: "a") })
    }

    /// What NIO's `WebSocketFrameEncoder` writes for final text frames of `payloads`, in turn.
    static func encodedByNIO(_ payloads: [ByteBuffer]) throws -> [UInt8] {
        let channel = EmbeddedChannel(handler: WebSocketFrameEncoder())
        defer { _ = try? channel.finish() }
        var bytes: [UInt8] = []
        for payload in payloads {
            try channel.writeOutbound(WebSocketFrame(fin: true, opcode: .text, data: payload))
            while var part = try channel.readOutbound(as: ByteBuffer.self) {
                bytes += part.readBytes(length: part.readableBytes) ?? []
            }
        }
        return bytes
    }

    static func frames(_ batch: [RealtimeConnection.Outbound]) -> [UInt8] {
        RealtimeFrameWriter.frames(of: batch, allocator: ByteBufferAllocator()).flatMap { buffer in
            buffer.getBytes(at: buffer.readerIndex, length: buffer.readableBytes) ?? []
        }
    }

    // One length for each size of the length field: 7 bits, 16 bits and 64 bits.
    @Test(arguments: [0, 5, 125, 126, 200, 65_535, 65_536, 70_000])
    func aMessageBecomesTheFrameNIOWouldWrite(length: Int) throws {
        let message = Self.message(length: length)
        #expect(Self.frames([.message(message)]) == (try Self.encodedByNIO([message])))
    }

    @Test func aBatchBecomesItsMessagesFramesInOrderWithoutItsClose() throws {
        let payload = ByteBuffer(string: #"{"data":{"onCreatePost":{"id":"p1"}}}"#)
        let batch: [RealtimeConnection.Outbound] = [
            .message(ByteBuffer(string: #"{"id":"a","type":"start_ack"}"#)),
            .data(quotedID: #""a""#, payload: payload),
            .data(quotedID: #""b""#, payload: Self.message(length: 300)),
            .message(ByteBuffer(string: #"{"type":"ka"}"#)),
            .close(code: 1000, reason: "Done"),
        ]
        let expected = try Self.encodedByNIO(batch.compactMap(\.bytes))
        #expect(Self.frames(batch) == expected)
        #expect(Self.frames([.close(code: 1000, reason: "Done")]).isEmpty)
    }

    /// A large payload is written as the buffer the event's subscribers share, not copied for
    /// each message: a subscriber that stops reading holds a reference to it, not a copy.
    @Test func aLargePayloadIsWrittenAsTheSharedBufferItself() throws {
        let payload = Self.message(length: 200 * 1024)
        let batch: [RealtimeConnection.Outbound] = [
            .data(quotedID: #""a""#, payload: payload),
            .data(quotedID: #""b""#, payload: payload),
            .data(quotedID: #""c""#, payload: ByteBuffer(string: "{}")),
        ]
        let buffers = RealtimeFrameWriter.frames(of: batch, allocator: ByteBufferAllocator())
        let shared = payload.withUnsafeReadableBytes { $0.baseAddress }
        let sharing = buffers.filter { buffer in buffer.withUnsafeReadableBytes { $0.baseAddress } == shared }
        #expect(sharing.count == 2)
        #expect(buffers.reduce(0) { $0 + $1.readableBytes } < 2 * payload.readableBytes + 200)
        #expect(Self.frames(batch) == (try Self.encodedByNIO(batch.compactMap(\.bytes))))
    }

    @Test func aDataMessageIsItsIDAndPayloadInTheProtocolsEnvelope() throws {
        let element = RealtimeConnection.Outbound.data(quotedID: #""s""#, payload: ByteBuffer(string: "{}"))
        let message = try #require(element.bytes)
        #expect(String(buffer: message) == #"{"id":"s","type":"data","payload":{}}"#)
        #expect(message.readableBytes == element.size)
    }
}
