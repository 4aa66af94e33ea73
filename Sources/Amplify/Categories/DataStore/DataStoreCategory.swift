/// What `Amplify.DataStore` offers: an on-device store of models with predicates, relations and
/// observation, synced with a backend when one is configured.
///
/// ```swift
/// let post = try await Amplify.DataStore.save(Post(title: "My First Post", rating: 10, status: "active"))
/// let good = try await Amplify.DataStore.query(Post.self, where: Post.keys.rating > 4)
/// for try await event in Amplify.DataStore.observe(Post.self) { print(event.mutationType) }
/// ```
///
/// The completion-handler forms of the Amplify documentation are available as extensions.
public protocol DataStoreCategory: Sendable {
    /// Creates or updates `model`; with a `condition`, only when the stored record matches it.
    ///
    /// - Throws: ``DataStoreError`` when the model is invalid, the condition fails or storage fails.
    @discardableResult
    func save<M: Model>(_ model: M, where condition: (any QueryPredicate)?) async throws -> M

    /// The model of type `modelType` whose identifier is `id`, or `nil`.
    ///
    /// - Throws: ``DataStoreError`` when the model is not registered or storage fails.
    func query<M: Model>(_ modelType: M.Type, byId id: String) async throws -> M?

    /// The models of type `modelType` matching `predicate`, sorted and paginated.
    ///
    /// - Throws: ``DataStoreError`` when the predicate names an unknown field or storage fails.
    func query<M: Model>(
        _ modelType: M.Type,
        where predicate: (any QueryPredicate)?,
        sort sortInput: QuerySortInput?,
        paginate paginationInput: QueryPaginationInput?
    ) async throws -> [M]

    /// Deletes `model` (and its hasMany children); with a predicate, only when it matches.
    ///
    /// - Throws: ``DataStoreError`` when the condition fails or storage fails.
    func delete<M: Model>(_ model: M, where predicate: (any QueryPredicate)?) async throws

    /// Deletes the model of type `modelType` whose identifier is `id`.
    ///
    /// - Throws: ``DataStoreError`` when the condition fails or storage fails.
    func delete<M: Model>(_ modelType: M.Type, withId id: String, where predicate: (any QueryPredicate)?) async throws

    /// Deletes every model of type `modelType` matching `predicate`.
    ///
    /// - Throws: ``DataStoreError`` when storage fails.
    func delete<M: Model>(_ modelType: M.Type, where predicate: any QueryPredicate) async throws

    /// Runs `body` as one transaction: its saves, deletes and their outbox events are committed
    /// together when it returns, or rolled back together when it throws.
    ///
    /// Reads inside see the transaction's own writes; observers hear of its changes once it
    /// commits, all at once. `body` runs on the store's writer, so that no other write comes
    /// between its own: keep it short, and do no waiting inside it.
    ///
    /// ```swift
    /// try await Amplify.DataStore.transaction { tx in
    ///     try tx.save(post)
    ///     try tx.delete(Comment.self, where: Comment.keys.post == post.id)
    /// }
    /// ```
    ///
    /// - Throws: ``DataStoreError`` naming the write that failed (its index in the transaction,
    ///   and its record) when a write fails or a condition does not hold, or what `body` throws;
    ///   nothing is written then.
    func transaction<T: Sendable>(_ body: @Sendable (any DataStoreTransaction) throws -> T) async throws -> T

    /// Every change to models of type `modelType`, from now on.
    func observe<M: Model>(_ modelType: M.Type) -> AsyncThrowingStream<MutationEvent, any Error>

    /// Snapshots of the models matching `predicate`: the current result first, then one per change.
    func observeQuery<M: Model>(
        for modelType: M.Type,
        where predicate: (any QueryPredicate)?,
        sort sortInput: QuerySortInput?
    ) -> AsyncThrowingStream<DataStoreQuerySnapshot<M>, any Error>

    /// Removes every local record, pending outbox included.
    ///
    /// - Throws: ``DataStoreError`` when storage fails.
    func clear() async throws

    /// Starts the store (and sync, when configured).
    ///
    /// - Throws: ``DataStoreError`` when the store cannot open.
    func start() async throws

    /// Stops sync and observation; the store can start again.
    ///
    /// - Throws: ``DataStoreError`` when stopping fails.
    func stop() async throws
}
