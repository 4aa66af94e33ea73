/// The writes and reads of one DataStore transaction: what the closure given to
/// ``DataStoreCategory/transaction(_:)`` is handed.
///
/// Every write goes to the same database transaction as the others: the records, their sync
/// metadata and their outbox events are committed together when the closure returns, or not at
/// all when it throws. Reads see the transaction's own writes. Observers hear of the changes
/// once the transaction commits, all of them at once.
///
/// ```swift
/// try await Amplify.DataStore.transaction { tx in
///     guard let post = try tx.query(Post.self, byId: "p1") else { return }
///     try tx.save(Comment(content: "First!", post: post))
///     try tx.save(post.copy(rating: post.rating + 1), where: Post.keys.rating == post.rating)
/// }
/// ```
///
/// A transaction is used only inside its closure, on the thread that closure runs on: calling
/// it afterwards stops the program.
public protocol DataStoreTransaction {
    /// Creates or updates `model`; with a `condition`, only when the stored record matches it.
    ///
    /// - Throws: ``DataStoreError`` naming this write's index in the transaction and its record
    ///   when the model is invalid or the condition fails; the transaction then rolls back.
    @discardableResult
    func save<M: Model>(_ model: M, where condition: (any QueryPredicate)?) throws -> M

    /// Deletes `model` (and its hasMany and hasOne children); with a predicate, only when it
    /// matches.
    ///
    /// - Throws: ``DataStoreError`` naming this write's index and its record when the condition
    ///   fails; the transaction then rolls back.
    func delete<M: Model>(_ model: M, where predicate: (any QueryPredicate)?) throws

    /// Deletes the model of type `modelType` whose identifier is `id`.
    ///
    /// - Throws: ``DataStoreError`` naming this write's index and its record when the condition
    ///   fails; the transaction then rolls back.
    func delete<M: Model>(_ modelType: M.Type, withId id: String, where predicate: (any QueryPredicate)?) throws

    /// Deletes every model of type `modelType` matching `predicate`.
    ///
    /// - Throws: ``DataStoreError`` naming this write's index when the predicate does not fit
    ///   the model; the transaction then rolls back.
    func delete<M: Model>(_ modelType: M.Type, where predicate: any QueryPredicate) throws

    /// The model of type `modelType` whose identifier is `id`, as the transaction has it so far.
    ///
    /// - Throws: ``DataStoreError`` when the model is not registered or storage fails.
    func query<M: Model>(_ modelType: M.Type, byId id: String) throws -> M?

    /// The models of type `modelType` matching `predicate`, sorted and paginated, as the
    /// transaction has them so far.
    ///
    /// - Throws: ``DataStoreError`` when the predicate names an unknown field or storage fails.
    func query<M: Model>(
        _ modelType: M.Type,
        where predicate: (any QueryPredicate)?,
        sort sortInput: QuerySortInput?,
        paginate paginationInput: QueryPaginationInput?
    ) throws -> [M]
}

/// The shorter spellings, as ``DataStoreCategory`` offers them.
extension DataStoreTransaction {
    /// Creates or updates `model`.
    ///
    /// - Throws: ``DataStoreError`` naming this write's index and its record when the model is
    ///   invalid; the transaction then rolls back.
    @discardableResult
    public func save<M: Model>(_ model: M) throws -> M {
        try save(model, where: nil)
    }

    /// Deletes `model` and its hasMany and hasOne children.
    ///
    /// - Throws: ``DataStoreError`` naming this write's index and its record when storage fails.
    public func delete<M: Model>(_ model: M) throws {
        try delete(model, where: nil)
    }

    /// Deletes the model of type `modelType` whose identifier is `id`.
    ///
    /// - Throws: ``DataStoreError`` naming this write's index and its record when storage fails.
    public func delete<M: Model>(_ modelType: M.Type, withId id: String) throws {
        try delete(modelType, withId: id, where: nil)
    }

    /// The models of type `modelType` matching `predicate`, sorted, as the transaction has them.
    ///
    /// - Throws: ``DataStoreError`` when the predicate or sort names an unknown field.
    public func query<M: Model>(
        _ modelType: M.Type,
        where predicate: (any QueryPredicate)? = nil,
        sort sortInput: QuerySortInput? = nil
    ) throws -> [M] {
        try query(modelType, where: predicate, sort: sortInput, paginate: nil)
    }
}

extension DataStoreCategory {
    /// Saves `models` in one transaction, in order: all of them, or none.
    ///
    /// Their outbox events are sent to the backend in the same order, one mutation each.
    ///
    /// - Throws: ``DataStoreError`` naming the index of the model that could not be saved;
    ///   nothing is saved then.
    @discardableResult
    public func save<M: Model>(_ models: [M]) async throws -> [M] {
        try await transaction { tx in try models.map { try tx.save($0, where: nil) } }
    }

    /// Deletes `models` (with their hasMany and hasOne children) in one transaction, in order:
    /// all of them, or none.
    ///
    /// - Throws: ``DataStoreError`` naming the index of the model that could not be deleted;
    ///   nothing is deleted then.
    public func delete<M: Model>(_ models: [M]) async throws {
        try await transaction { tx in
            for model in models { try tx.delete(model, where: nil) }
        }
    }
}
