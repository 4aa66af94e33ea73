import Synchronization

/// The items of one list, as a field that batches its invocations (`BatchInvoke`) sends them.
///
/// GraphQL execution resolves a field of each item on its own; the items of a list share one of
/// these, so that the first of a batch to resolve the field invokes the function for the whole
/// batch (items `size × n ..< size × (n + 1)` of the list), and the others wait for that one
/// invocation. The list holds the items as they were before they learnt of it: no cycle.
final class ItemSiblings: Sendable {
    /// The answer of one invocation: a result or an error for each item of the batch, in order.
    typealias Answers = [Result<JSON, ResolverError>]

    let items: [ResolvedItem]
    /// The invocation of each batch, by the field's response key and the batch's number.
    private let batches = Mutex<[BatchKey: Task<Answers, Never>]>([:])

    private struct BatchKey: Hashable {
        let field: String
        let number: Int
    }

    init(_ items: [ResolvedItem]) {
        self.items = items
    }

    /// The answer for the item at `index` of the batch of `size` it belongs to, invoking
    /// `invoke` with the batch's items if no item of the batch has yet.
    func answer(
        for index: Int,
        field: String,
        size: Int,
        invoke: @escaping @Sendable (ArraySlice<ResolvedItem>) async -> Answers
    ) async -> Result<JSON, ResolverError> {
        let number = index / size
        let key = BatchKey(field: field, number: number)
        let range = number * size..<min(items.count, (number + 1) * size)
        let task = batches.withLock { batches in
            if let running = batches[key] { return running }
            let batch = items[range]
            let task = Task { await invoke(batch) }
            batches[key] = task
            return task
        }
        let answers = await task.value
        return answers[index - range.lowerBound]
    }
}
