import NIOCore
import NIOWebSocket

/// Writes the text messages of one real-time connection as WebSocket frames; a class, so that
/// scheduling a connection's writes retains one reference.
///
/// A batch of messages is framed into few buffers, each message after the header NIO's
/// `WebSocketFrameEncoder` would write for it, and goes to the socket below that encoder with
/// one flush per batch, whatever the number of messages. The payload of a large `data` message
/// is not copied into them: it goes as its own buffer, the one bytes every subscription and
/// connection of the event's selection share, so a thousand subscribers that do not read hold
/// one copy of an event's payload, not a thousand. Without the encoder in the pipeline, each
/// message goes through the pipeline as a `WebSocketFrame`. Both run on the channel's event
/// loop, so frames reach the socket whole and in the order they were written.
final class RealtimeFrameWriter: Sendable {
    let channel: any Channel
    /// The context of the channel's frame encoder, where framed bytes are written; `nil` when
    /// the pipeline has none.
    private let encoder: NIOLoopBound<ChannelHandlerContext>?

    /// Payloads of at least this many bytes are written as they are, shared; smaller ones are
    /// copied next to their frame's header, which costs less than another buffer to write.
    static let sharedPayloadBytes = 1024

    /// A writer for `channel`, which must be a WebSocket once upgraded.
    static func make(for channel: any Channel) async -> RealtimeFrameWriter {
        // A pipeline without the encoder gets its frames through the channel's own writes.
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

    /// Writes the messages of `batch` (its closes are not messages) as text frames and flushes;
    /// `promise` completes when the socket took them all. Call on the channel's event loop.
    func write(_ batch: [RealtimeConnection.Outbound], promise: EventLoopPromise<Void>) {
        guard let lastMessage = batch.lastIndex(where: \.isMessage) else {
            promise.succeed()
            return
        }
        if let encoder {
            let buffers = Self.frames(of: batch, allocator: channel.allocator)
            // Writes complete in order: when the last one has, the socket took them all.
            for (index, buffer) in buffers.enumerated() {
                encoder.value.write(NIOAny(buffer), promise: index == buffers.count - 1 ? promise : nil)
            }
            encoder.value.flush()
        } else {
            for (index, element) in batch.enumerated() {
                guard let bytes = element.bytes else { continue }
                channel.write(
                    WebSocketFrame(fin: true, opcode: .text, data: bytes),
                    promise: index == lastMessage ? promise : nil
                )
            }
            channel.flush()
        }
    }

    /// The frames of the messages of `batch`, one after the other: buffers of frame headers and
    /// small messages, between which the payloads of large `data` messages stand as they are.
    static func frames(of batch: [RealtimeConnection.Outbound], allocator: ByteBufferAllocator) -> [ByteBuffer] {
        var buffers: [ByteBuffer] = []
        var capacity = 0
        for element in batch where element.isMessage {
            let size = element.size
            capacity += WebSocketTextFrameHeader.size(length: size) + size
        }
        var buffer = allocator.buffer(capacity: min(capacity, 64 * 1024))
        for element in batch where element.isMessage {
            WebSocketTextFrameHeader.write(length: element.size, to: &buffer)
            if case .data(let quotedID, let payload) = element, payload.readableBytes >= sharedPayloadBytes {
                RealtimeDataMessage.writeHead(quotedID: quotedID, to: &buffer)
                buffers.append(buffer)
                buffers.append(payload)
                buffer = allocator.buffer(capacity: 256)
                RealtimeDataMessage.writeTail(to: &buffer)
            } else {
                element.write(to: &buffer)
            }
        }
        if buffer.readableBytes > 0 { buffers.append(buffer) }
        return buffers
    }
}

/// The header of a final, unmasked WebSocket text frame, as a server writes it: for writers that
/// frame several messages into one buffer and write it below NIO's `WebSocketFrameEncoder`
/// (the benchmarks' bare server writes the same frames).
package enum WebSocketTextFrameHeader {
    /// The size of the header of a frame of `length` bytes: the length takes 7, 16 or 64 bits.
    package static func size(length: Int) -> Int {
        length < 126 ? 2 : length <= Int(UInt16.max) ? 4 : 10
    }

    /// Appends the header of a final text frame of `length` bytes.
    package static func write(length: Int, to buffer: inout ByteBuffer) {
        // FIN and the text opcode; a server's frames are not masked.
        buffer.writeInteger(UInt8(0x81))
        switch size(length: length) {
        case 2:
            buffer.writeInteger(UInt8(length))
        case 4:
            buffer.writeInteger(UInt8(126))
            buffer.writeInteger(UInt16(length))
        default:
            buffer.writeInteger(UInt8(127))
            buffer.writeInteger(UInt64(length))
        }
    }
}

/// A real-time `data` message, `{"id":<id>,"type":"data","payload":<payload>}`, written straight
/// into the buffer of its frames: the subscription's id as JSON text, the event's payload as
/// encoded once for every subscription that selects the same fields.
package enum RealtimeDataMessage {
    private static let head = #"{"id":"#
    private static let middle = #","type":"data","payload":"#

    /// The size of the message in bytes.
    package static func size(quotedID: String, payload: ByteBuffer) -> Int {
        head.utf8.count + quotedID.utf8.count + middle.utf8.count + payload.readableBytes + 1
    }

    /// Appends the message to `buffer`.
    package static func write(quotedID: String, payload: ByteBuffer, to buffer: inout ByteBuffer) {
        writeHead(quotedID: quotedID, to: &buffer)
        buffer.writeImmutableBuffer(payload)
        writeTail(to: &buffer)
    }

    /// Appends what comes before the payload: `{"id":<id>,"type":"data","payload":`.
    package static func writeHead(quotedID: String, to buffer: inout ByteBuffer) {
        buffer.writeString(head)
        buffer.writeString(quotedID)
        buffer.writeString(middle)
    }

    /// Appends what comes after the payload: `}`.
    package static func writeTail(to buffer: inout ByteBuffer) {
        buffer.writeInteger(UInt8(ascii: "}"))
    }
}
