/// The shorter spellings of the DataStore calls: omitted arguments default to `nil`, and a
/// predicate may be given as a closure, the way the Amplify documentation writes it.
///
/// ```swift
/// let p = Post.keys
/// let all = try await Amplify.DataStore.query(Post.self)
/// let good = try await Amplify.DataStore.query(Post.self, where: { p.rating > 4 || p.status == "active" })
/// try await Amplify.DataStore.delete(Post.self, withId: "123")
/// ```
extension DataStoreCategory {
    /// Creates or updates `model`.
    ///
    /// - Throws: ``DataStoreError`` when the model is invalid or storage fails.
    @discardableResult
    public func save<M: Model>(_ model: M) async throws -> M {
        try await save(model, where: nil)
    }

    /// Updates `model` when the stored record matches the condition `condition` builds.
    ///
    /// - Throws: ``DataStoreError`` with ``DataStoreError/Code/conditionalSaveFailed`` when the
    ///   stored record does not match, ``DataStoreError/Code/invalidCondition`` when there is no
    ///   stored record to check.
    @discardableResult
    public func save<M: Model>(_ model: M, where condition: () -> any QueryPredicate) async throws -> M {
        try await save(model, where: condition())
    }

    /// The models of type `modelType` matching `predicate`, sorted.
    ///
    /// - Throws: ``DataStoreError`` when the predicate or sort names an unknown field or storage
    ///   fails.
    public func query<M: Model>(
        _ modelType: M.Type,
        where predicate: (any QueryPredicate)? = nil,
        sort sortInput: QuerySortInput? = nil
    ) async throws -> [M] {
        try await query(modelType, where: predicate, sort: sortInput, paginate: nil)
    }

    /// One page of the models of type `modelType` matching `predicate`, sorted.
    ///
    /// - Throws: ``DataStoreError`` when the predicate or sort names an unknown field or storage
    ///   fails.
    public func query<M: Model>(
        _ modelType: M.Type,
        where predicate: (any QueryPredicate)? = nil,
        sort sortInput: QuerySortInput? = nil,
        paginate paginationInput: QueryPaginationInput
    ) async throws -> [M] {
        try await query(modelType, where: predicate, sort: sortInput, paginate: Optional(paginationInput))
    }

    /// The models of type `modelType` matching the predicate `predicate` builds.
    ///
    /// - Throws: ``DataStoreError`` when the predicate or sort names an unknown field or storage
    ///   fails.
    public func query<M: Model>(
        _ modelType: M.Type,
        where predicate: () -> any QueryPredicate,
        sort sortInput: QuerySortInput? = nil,
        paginate paginationInput: QueryPaginationInput? = nil
    ) async throws -> [M] {
        try await query(modelType, where: predicate(), sort: sortInput, paginate: paginationInput)
    }

    /// Deletes `model` and its hasMany children.
    ///
    /// - Throws: ``DataStoreError`` when storage fails.
    public func delete<M: Model>(_ model: M) async throws {
        try await delete(model, where: nil)
    }

    /// Deletes `model` and its hasMany children when the stored record matches the condition
    /// `predicate` builds.
    ///
    /// - Throws: ``DataStoreError`` with ``DataStoreError/Code/conditionalSaveFailed`` when the
    ///   stored record does not match.
    public func delete<M: Model>(_ model: M, where predicate: () -> any QueryPredicate) async throws {
        try await delete(model, where: predicate())
    }

    /// Deletes the model of type `modelType` whose identifier is `id`, and its hasMany children.
    ///
    /// - Throws: ``DataStoreError`` when storage fails.
    public func delete<M: Model>(_ modelType: M.Type, withId id: String) async throws {
        try await delete(modelType, withId: id, where: nil)
    }

    /// The model of type `modelType` whose primary key is `identifier`, or `nil`: ``query(_:byId:)``
    /// under the name Amplify gives it for models with a custom primary key. The values of a
    /// composite key are joined with ``ModelSchema/identifierSeparator`` in the key's order, as
    /// ``Model/identifier`` gives them.
    ///
    /// - Throws: ``DataStoreError`` when the model is not registered or storage fails.
    public func query<M: Model>(_ modelType: M.Type, byIdentifier identifier: String) async throws -> M? {
        try await query(modelType, byId: identifier)
    }

    /// The model of type `modelType` whose custom primary key is `identifier`, or `nil`.
    ///
    /// ```swift
    /// let author = try await Amplify.DataStore.query(
    ///     Author.self,
    ///     byIdentifier: .identifier(country: "NZ", handle: "kiwi")
    /// )
    /// ```
    ///
    /// - Throws: ``DataStoreError`` when the model is not registered or storage fails.
    public func query<M: Model>(
        _ modelType: M.Type,
        byIdentifier identifier: ModelIdentifier<M, ModelIdentifierFormat.Custom>
    ) async throws -> M? {
        try await query(modelType, byId: identifier.stringValue)
    }

    /// Deletes the model of type `modelType` whose custom primary key is `identifier`, and its
    /// hasMany children.
    ///
    /// - Throws: ``DataStoreError`` when the condition fails or storage fails.
    public func delete<M: Model>(
        _ modelType: M.Type,
        withIdentifier identifier: ModelIdentifier<M, ModelIdentifierFormat.Custom>,
        where predicate: (any QueryPredicate)? = nil
    ) async throws {
        try await delete(modelType, withId: identifier.stringValue, where: predicate)
    }

    /// Deletes the model of type `modelType` whose primary key is `identifier`, and its hasMany
    /// children: ``delete(_:withId:)`` under the name Amplify gives it for custom primary keys.
    ///
    /// - Throws: ``DataStoreError`` when the condition fails or storage fails.
    public func delete<M: Model>(
        _ modelType: M.Type,
        withIdentifier identifier: String,
        where predicate: (any QueryPredicate)? = nil
    ) async throws {
        try await delete(modelType, withId: identifier, where: predicate)
    }

    /// Deletes every model of type `modelType` matching the predicate `predicate` builds.
    ///
    /// - Throws: ``DataStoreError`` when the predicate names an unknown field or storage fails.
    public func delete<M: Model>(_ modelType: M.Type, where predicate: () -> any QueryPredicate) async throws {
        try await delete(modelType, where: predicate())
    }

    /// Snapshots of the models of type `modelType` matching `predicate`: the current result
    /// first, then one after each change.
    public func observeQuery<M: Model>(
        for modelType: M.Type,
        where predicate: (any QueryPredicate)? = nil
    ) -> AsyncThrowingStream<DataStoreQuerySnapshot<M>, any Error> {
        observeQuery(for: modelType, where: predicate, sort: nil)
    }

    /// Sorted snapshots of the models of type `modelType` matching `predicate`.
    public func observeQuery<M: Model>(
        for modelType: M.Type,
        where predicate: (any QueryPredicate)? = nil,
        sort sortInput: QuerySortInput
    ) -> AsyncThrowingStream<DataStoreQuerySnapshot<M>, any Error> {
        observeQuery(for: modelType, where: predicate, sort: Optional(sortInput))
    }

    /// Snapshots of the models of type `modelType` matching the predicate `predicate` builds.
    public func observeQuery<M: Model>(
        for modelType: M.Type,
        where predicate: () -> any QueryPredicate,
        sort sortInput: QuerySortInput? = nil
    ) -> AsyncThrowingStream<DataStoreQuerySnapshot<M>, any Error> {
        observeQuery(for: modelType, where: predicate(), sort: sortInput)
    }
}
