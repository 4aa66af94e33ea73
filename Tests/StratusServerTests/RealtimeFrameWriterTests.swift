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
        var frames = RealtimeFrameWriter.frames(of: batch, allocator: ByteBufferAllocator())
        return frames.readBytes(length: frames.readableBytes) ?? []
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

    @Test func aDataMessageIsItsIDAndPayloadInTheProtocolsEnvelope() throws {
        let element = RealtimeConnection.Outbound.data(quotedID: #""s""#, payload: ByteBuffer(string: "{}"))
        let message = try #require(element.bytes)
        #expect(String(buffer: message) == #"{"id":"s","type":"data","payload":{}}"#)
        #expect(message.readableBytes == element.size)
    }
}
