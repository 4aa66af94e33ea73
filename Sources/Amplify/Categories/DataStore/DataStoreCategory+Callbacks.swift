/// What a completion-handler DataStore call passes its handler.
public typealias DataStoreCallback<Value> = @Sendable (Result<Value, DataStoreError>) -> Void

/// The completion-handler forms of the Amplify documentation.
///
/// Each call starts its work and returns at once; the handler runs when the work is done, on
/// no particular thread. Calls made one after the other are not ordered: start the next one from
/// the handler of the previous, as the documentation does.
///
/// ```swift
/// Amplify.DataStore.save(Post(title: "My First Post", rating: 10, status: "active")) {
///     switch $0 {
///     case .success: print("Added post")
///     case .failure(let err): print("Error adding post - \(err.localizedDescription)")
///     }
/// }
/// ```
extension DataStoreCategory {
    /// Creates or updates `model`; with a `condition`, only when the stored record matches it.
    public func save<M: Model>(
        _ model: M,
        where condition: (any QueryPredicate)? = nil,
        completion: @escaping DataStoreCallback<M>
    ) {
        run(completion) { try await save(model, where: condition) }
    }

    /// Updates `model` when the stored record matches the condition `condition` builds.
    public func save<M: Model>(
        _ model: M,
        where condition: () -> any QueryPredicate,
        completion: @escaping DataStoreCallback<M>
    ) {
        let condition = condition()
        run(completion) { try await save(model, where: condition) }
    }

    /// The model of type `modelType` whose identifier is `id`, or `nil`.
    public func query<M: Model>(_ modelType: M.Type, byId id: String, completion: @escaping DataStoreCallback<M?>) {
        run(completion) { try await query(modelType, byId: id) }
    }

    /// The models of type `modelType` matching `predicate`, sorted and paginated.
    public func query<M: Model>(
        _ modelType: M.Type,
        where predicate: (any QueryPredicate)? = nil,
        sort sortInput: QuerySortInput? = nil,
        paginate paginationInput: QueryPaginationInput? = nil,
        completion: @escaping DataStoreCallback<[M]>
    ) {
        run(completion) { try await query(modelType, where: predicate, sort: sortInput, paginate: paginationInput) }
    }

    /// The models of type `modelType` matching the predicate `predicate` builds.
    public func query<M: Model>(
        _ modelType: M.Type,
        where predicate: () -> any QueryPredicate,
        sort sortInput: QuerySortInput? = nil,
        paginate paginationInput: QueryPaginationInput? = nil,
        completion: @escaping DataStoreCallback<[M]>
    ) {
        let predicate = predicate()
        run(completion) { try await query(modelType, where: predicate, sort: sortInput, paginate: paginationInput) }
    }

    /// Deletes `model` and its hasMany children; with a predicate, only when it matches.
    public func delete<M: Model>(
        _ model: M,
        where predicate: (any QueryPredicate)? = nil,
        completion: @escaping DataStoreCallback<Void>
    ) {
        run(completion) { try await delete(model, where: predicate) }
    }

    /// Deletes the model of type `modelType` whose identifier is `id`, and its hasMany children.
    public func delete<M: Model>(
        _ modelType: M.Type,
        withId id: String,
        where predicate: (any QueryPredicate)? = nil,
        completion: @escaping DataStoreCallback<Void>
    ) {
        run(completion) { try await delete(modelType, withId: id, where: predicate) }
    }

    /// Deletes every model of type `modelType` matching `predicate`.
    public func delete<M: Model>(
        _ modelType: M.Type,
        where predicate: any QueryPredicate,
        completion: @escaping DataStoreCallback<Void>
    ) {
        run(completion) { try await delete(modelType, where: predicate) }
    }

    /// Deletes every model of type `modelType` matching the predicate `predicate` builds.
    public func delete<M: Model>(
        _ modelType: M.Type,
        where predicate: () -> any QueryPredicate,
        completion: @escaping DataStoreCallback<Void>
    ) {
        let predicate = predicate()
        run(completion) { try await delete(modelType, where: predicate) }
    }

    /// Removes every local record, pending outbox included.
    public func clear(completion: @escaping DataStoreCallback<Void>) {
        run(completion) { try await clear() }
    }

    /// Starts the store.
    public func start(completion: @escaping DataStoreCallback<Void>) {
        run(completion) { try await start() }
    }

    /// Stops the store.
    public func stop(completion: @escaping DataStoreCallback<Void>) {
        run(completion) { try await stop() }
    }

    private func run<Value>(
        _ completion: @escaping DataStoreCallback<Value>,
        _ operation: @escaping @Sendable () async throws -> Value
    ) {
        Task {
            do {
                completion(.success(try await operation()))
            } catch {
                completion(.failure(DataStoreError(error)))
            }
        }
    }
}
