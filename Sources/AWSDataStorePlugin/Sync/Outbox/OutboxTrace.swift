import Tracing

/// The trace context an outbox event keeps: the W3C `traceparent` (and `tracestate`) of the
/// save, delete or transaction that made it, as the tracer's propagator writes them, stored in
/// the outbox's `traceContext` column as `name: value` lines.
///
/// The outbox may send the event long after the save, after the app restarted even: the send
/// continues the save's trace from what the row keeps.
enum OutboxTrace {
    /// The stored trace context of the write transaction being run, which ``Outbox`` gives the
    /// events it appends; bound by ``StorageEngine`` on the writer's thread.
    @TaskLocal static var current: String?

    /// The current span's context as stored text; `nil` outside a span.
    static func capture(_ tracer: any Tracer) -> String? {
        guard let context = ServiceContext.current else { return nil }
        var fields: [String: String] = [:]
        tracer.inject(context, into: &fields, using: FieldsInjector())
        guard !fields.isEmpty else { return nil }
        return fields.sorted { $0.key < $1.key }.map { "\($0.key): \($0.value)" }.joined(separator: "\n")
    }

    /// The context stored as `text`, for a span that continues the save's trace.
    static func context(of text: String, _ tracer: any Tracer) -> ServiceContext {
        var fields: [String: String] = [:]
        for line in text.split(separator: "\n") {
            guard let colon = line.firstIndex(of: ":") else { continue }
            let value = line[line.index(after: colon)...].drop { $0 == " " }
            fields[String(line[..<colon])] = String(value)
        }
        var context = ServiceContext.topLevel
        tracer.extract(fields, into: &context, using: FieldsExtractor())
        return context
    }

    private struct FieldsInjector: Injector {
        func inject(_ value: String, forKey key: String, into fields: inout [String: String]) {
            fields[key] = value
        }
    }

    private struct FieldsExtractor: Extractor {
        func extract(key: String, from fields: [String: String]) -> String? {
            fields[key]
        }
    }
}

extension StorageEngine {
    /// Runs `body` in a span named `name` (`DataStore.save Post`) when DataStore traces: the
    /// outbox events its writes append keep the span's context.
    func traced<T>(_ name: @autoclosure () -> String, _ body: () async throws -> T) async throws -> T {
        guard let tracer else { return try await body() }
        return try await tracer.withSpan(name(), ofKind: .producer) { _ in try await body() }
    }
}
