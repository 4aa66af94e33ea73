import NIOCore
import ServiceContextModule
import StratusCodegen
import Synchronization
import Tracing

/// A committed write, as subscriptions hear it: the model, the kind of mutation and the item as
/// stored after the write.
///
/// A class, so that handing one event to a thousand listeners retains one reference each time
/// rather than every reference inside the model and the items.
final class WriteEvent: Sendable {
    /// The mutation that made the write.
    enum Kind: String, Sendable, Hashable, CaseIterable {
        case create, update, delete

        /// The kind of the mutation field `field` of `model`: `createPost` is `.create`.
        init?(field: String, of model: ModelType) {
            guard let kind = Self.allCases.first(where: { $0.mutationField(of: model) == field }) else { return nil }
            self = kind
        }

        /// The mutation field of this kind of `model`, if it has one: `.create` of `Post` is
        /// `createPost`.
        func mutationField(of model: ModelType) -> String? {
            switch self {
            case .create: model.operations.create
            case .update: model.operations.update
            case .delete: model.operations.delete
            }
        }

        /// What the caller's `@auth` rules must allow for a mutation of this kind.
        var operation: Authorization.Operation {
            switch self {
            case .create: .create
            case .update: .update
            case .delete: .delete
            }
        }

        /// The kind of the subscription field `field` of `model`: `onCreatePost` is `.create`.
        init?(subscription field: String, of model: ModelType) {
            let fields = [model.operations.onCreate, model.operations.onUpdate, model.operations.onDelete]
            guard let index = fields.firstIndex(of: field) else { return nil }
            self = Self.allCases[index]
        }
    }

    /// The position of the write among all published writes, from 1.
    let sequence: UInt64
    let kind: Kind
    /// The model and the item after the write; for a delete, a tombstone or the last values.
    let item: ResolvedItem
    /// The item as the mutation's result has it: the fields it did not select removed.
    /// Subscribers see those as `null`, and filters are evaluated on this, as AppSync does. It
    /// is made once here, not for each subscription the event is matched against.
    let result: ResolvedItem
    /// The `data` payloads already encoded for this event, by selection: many subscribers of
    /// the same selection share one encoding.
    let payloads = PayloadCache()

    var model: ModelType { item.model }
    /// The model's name, read by every subscription the event is matched against.
    let modelName: String
    /// The span that published the event, in a traced request: the real-time fan-outs deliver
    /// it in child spans.
    let trace: EventTrace?

    /// An event for `item`; `selectedFields` are the fields the mutation selected, `nil` for all.
    init(
        sequence: UInt64,
        kind: Kind,
        item: ResolvedItem,
        selectedFields: Set<String>? = nil,
        trace: EventTrace? = nil
    ) {
        self.sequence = sequence
        self.kind = kind
        self.item = item
        self.trace = trace
        modelName = item.model.name
        guard let selectedFields else {
            result = item
            return
        }
        var visible = item.item
        visible.values = JSONObject(
            item.item.values.filter { selectedFields.contains($0.key) }.map { ($0.key, $0.value) }
        )
        if !selectedFields.contains(TableLayout.versionColumn) { visible.version = nil }
        if !selectedFields.contains(TableLayout.deletedColumn) { visible.deleted = nil }
        if !selectedFields.contains(TableLayout.lastChangedAtColumn) { visible.lastChangedAt = nil }
        result = ResolvedItem(model: item.model, item: visible)
    }
}

/// The trace of a published write: the tracer of the request that made it and the context of
/// its `publish` span.
struct EventTrace: Sendable {
    let tracer: any Tracer
    let context: ServiceContext

    /// The trace of the current span, when the current request is traced.
    static var current: EventTrace? {
        guard let tracer = Traces.tracer, let context = ServiceContext.current else { return nil }
        return EventTrace(tracer: tracer, context: context)
    }
}

/// Encoded payloads of one event, by selection: every subscription whose selection set and
/// response key are the same gets the same bytes, encoded once.
final class PayloadCache: Sendable {
    private struct State {
        var payloads: [String: ByteBuffer] = [:]
        /// The payload asked for last: most subscribers share one selection, and comparing its
        /// key costs less than hashing it.
        var last: (selectionKey: String, payload: ByteBuffer)?
        var encodings = 0
    }

    private let state = Mutex(State())

    /// The payload of the subscriptions of `selectionKey`, from `encode` the first time.
    func payload(for selectionKey: String, encode: () -> JSON) -> ByteBuffer {
        state.withLock { state in
            if let last = state.last, last.selectionKey == selectionKey { return last.payload }
            let payload: ByteBuffer
            if let known = state.payloads[selectionKey] {
                payload = known
            } else {
                state.encodings += 1
                payload = ByteBuffer(string: encode().text)
                state.payloads[selectionKey] = payload
            }
            state.last = (selectionKey, payload)
            return payload
        }
    }

    /// How many payloads were encoded.
    var encodings: Int { state.withLock { $0.encodings } }
}

/// The selection keys of subscriptions, each kept as one string that every subscription with
/// that key shares.
///
/// Two equal strings with the same storage compare without reading their bytes, so an event's
/// ``PayloadCache`` finds the payload of the next subscriber by comparing two references, not
/// two keys of a hundred bytes in memory of their own.
final class SelectionKeys: Sendable {
    /// The most keys kept; past it, keys are used as they come, which only costs comparisons.
    static let capacity = 4_096

    private let keys = Mutex<Set<String>>([])

    /// The string kept for `key`, kept now when there is none yet.
    func intern(_ key: String) -> String {
        keys.withLock { keys in
            if let kept = keys.firstIndex(of: key).map({ keys[$0] }) { return kept }
            if keys.count < Self.capacity { keys.insert(key) }
            return key
        }
    }

    /// How many keys are kept, for tests.
    var count: Int { keys.withLock { $0.count } }
}
