import NIOCore
import NIOWebSocket

/// Writes the text messages of one real-time connection as WebSocket frames; a class, so that
/// scheduling a connection's writes retains one reference.
///
/// A message built with room before it (``RealtimeConnection/frameHeaderRoom``) gets its frame
/// header written into that room and goes to the socket as one buffer, written below the
/// channel's `WebSocketFrameEncoder`. Any other message goes through the encoder as a
/// `WebSocketFrame`, which writes its header as a buffer of its own. Both run on the channel's
/// event loop, so frames reach the socket whole and in the order they were written.
final class RealtimeFrameWriter: Sendable {
    let channel: any Channel
    /// The context of the channel's frame encoder, where framed bytes are written; `nil` when
    /// the pipeline has none.
    private let encoder: NIOLoopBound<ChannelHandlerContext>?

    /// A writer for `channel`, which must be a WebSocket once upgraded.
    static func make(for channel: any Channel) async -> RealtimeFrameWriter {
        let encoder = try? await channel.eventLoop.submit {
            let context = try channel.pipeline.syncOperations.context(handlerType: WebSocketFrameEncoder.self)
            return NIOLoopBound(context, eventLoop: channel.eventLoop)
        }.get()
        return RealtimeFrameWriter(channel: channel, encoder: encoder)
    }

    private init(channel: any Channel, encoder: NIOLoopBound<ChannelHandlerContext>?) {
        self.channel = channel
        self.encoder = encoder
    }

    /// Writes `message` as one text frame; call on the channel's event loop. Returns whether it
    /// went through the whole pipeline rather than below the encoder.
    @discardableResult
    func write(_ message: consuming ByteBuffer, promise: EventLoopPromise<Void>?) -> Bool {
        var message = message
        if let encoder, Self.frame(&message) {
            encoder.value.write(NIOAny(message), promise: promise)
            return false
        } else {
            channel.write(WebSocketFrame(fin: true, opcode: .text, data: message), promise: promise)
            return true
        }
    }

    /// Flushes the writes: from below the encoder when every write since the last flush was
    /// written there (`throughPipeline` false), which skips the handlers above it; through the
    /// whole pipeline otherwise. Call on the channel's event loop.
    func flush(throughPipeline: Bool) {
        if let encoder, !throughPipeline {
            encoder.value.flush()
        } else {
            channel.flush()
        }
    }

    /// Makes `message` the bytes of a final text frame holding it, by writing the frame's
    /// header into the room before it; `false`, leaving it as it was, when there is not enough
    /// room or the buffer is shared.
    static func frame(_ message: inout ByteBuffer) -> Bool {
        let length = message.readableBytes
        let headerSize = length < 126 ? 2 : length <= Int(UInt16.max) ? 4 : 10
        guard message.readerIndex >= headerSize else { return false }
        let framed: Bool? = message.modifyIfUniquelyOwned { buffer in
            let start = buffer.readerIndex - headerSize
            // FIN and the text opcode; a server's frames are not masked.
            buffer.setInteger(UInt8(0x81), at: start)
            switch headerSize {
            case 2:
                buffer.setInteger(UInt8(length), at: start + 1)
            case 4:
                buffer.setInteger(UInt8(126), at: start + 1)
                buffer.setInteger(UInt16(length), at: start + 2)
            default:
                buffer.setInteger(UInt8(127), at: start + 1)
                buffer.setInteger(UInt64(length), at: start + 2)
            }
            buffer.moveReaderIndex(to: start)
            return true
        }
        return framed ?? false
    }
}
