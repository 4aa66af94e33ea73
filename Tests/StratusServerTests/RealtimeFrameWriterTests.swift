import NIOCore
import NIOEmbedded
import NIOWebSocket
import Testing

@testable import StratusServer

/// The frames the real-time writer makes in place of NIO's encoder, checked against the bytes
/// that encoder writes for the same message.
@Suite struct RealtimeFrameWriterTests {
    /// A message of `length` bytes with the room a `data` message leaves before it.
    static func message(length: Int) -> ByteBuffer {
        var buffer = ByteBufferAllocator().buffer(capacity: RealtimeConnection.frameHeaderRoom + length)
        buffer.moveWriterIndex(forwardBy: RealtimeConnection.frameHeaderRoom)
        buffer.moveReaderIndex(forwardBy: RealtimeConnection.frameHeaderRoom)
        buffer.writeBytes((0..<length).map { UInt8(truncatingIfNeeded: $0 % 26) + UInt8(ascii: "a") })
        return buffer
    }

    /// What NIO's `WebSocketFrameEncoder` writes for a final text frame of `payload`.
    static func encodedByNIO(_ payload: ByteBuffer) throws -> [UInt8] {
        let channel = EmbeddedChannel(handler: WebSocketFrameEncoder())
        defer { _ = try? channel.finish() }
        var copy = ByteBufferAllocator().buffer(capacity: payload.readableBytes)
        copy.writeImmutableBuffer(payload)
        try channel.writeOutbound(WebSocketFrame(fin: true, opcode: .text, data: copy))
        var bytes: [UInt8] = []
        while var part = try channel.readOutbound(as: ByteBuffer.self) {
            bytes += part.readBytes(length: part.readableBytes) ?? []
        }
        return bytes
    }

    // One length for each size of the length field: 7 bits, 16 bits and 64 bits.
    @Test(arguments: [0, 5, 125, 126, 200, 65_535, 65_536, 70_000])
    func aMessageWithRoomBecomesTheFrameNIOWouldWrite(length: Int) throws {
        var message = Self.message(length: length)
        let expected = try Self.encodedByNIO(message)
        #expect(RealtimeFrameWriter.frame(&message))
        #expect(message.readBytes(length: message.readableBytes) == expected)
    }

    @Test func aMessageWithoutRoomOrSharedIsLeftAsItIs() {
        var plain = ByteBuffer(string: #"{"type":"ka"}"#)
        #expect(!RealtimeFrameWriter.frame(&plain))
        #expect(String(buffer: plain) == #"{"type":"ka"}"#)

        // Another holder of the bytes must not see a header appear before them.
        var shared = Self.message(length: 10)
        let other = shared
        #expect(!RealtimeFrameWriter.frame(&shared))
        #expect(shared == other)
        #expect(shared.readerIndex == RealtimeConnection.frameHeaderRoom)
    }

    @Test func aDataMessageLeavesRoomForItsHeader() {
        let message = RealtimeConnection.dataMessage(quotedID: #""s""#, payload: ByteBuffer(string: "{}"))
        #expect(message.readerIndex == RealtimeConnection.frameHeaderRoom)
        #expect(String(buffer: message) == #"{"id":"s","type":"data","payload":{}}"#)
        #expect(
            message.readableBytes
                == RealtimeConnection.dataMessageSize(quotedID: #""s""#, payload: ByteBuffer(string: "{}"))
        )
    }
}
