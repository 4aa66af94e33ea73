import AWSPluginsCore
import Amplify
import Synchronization

/// What the DataStore plugin knows of the Auth plugin it follows.
struct AuthFollowing: Sendable {
    /// The Auth plugin added next to DataStore.
    var plugin: (any AuthCategoryPlugin)?
    /// The hub listener that feeds ``events``.
    var listener: HubCategory.UnsubscribeToken?
    /// The `.auth` events, handled one at a time in order.
    var events: AsyncStream<HubPayload>.Continuation?
    /// The user whose session expired: their records and outbox stay until the next sign-in,
    /// and go if someone else signs in.
    var expiredUserId: String?
    /// Whether sync waits for the next sign-in: the user signed out or the session expired.
    var waitsForSignIn = false
}

extension AWSDataStorePlugin: AuthCategoryPluginUser {
    /// Follows `plugin`'s user: when the models need a signed-in user (an `@auth` rule with user
    /// pools), sync runs only while one is signed in. `Amplify.configure()` calls it with the
    /// Auth plugin added, or `nil`.
    ///
    /// DataStore listens to `.auth` on its ``hub``: `Auth.signedIn` starts sync again,
    /// `Auth.signedOut` and `Auth.userDeleted` stop it and, with
    /// ``DataStoreConfiguration/clearsLocalDataOnSignOut``, clear the store and the outbox;
    /// `Auth.sessionExpired` stops it and keeps the outbox for the same user's next sign-in.
    package func useAuthPlugin(_ plugin: (any AuthCategoryPlugin)?) {
        let previous = auth.withLock { auth in
            defer { auth = AuthFollowing(plugin: plugin) }
            return auth
        }
        if let listener = previous.listener { hub.removeListener(listener) }
        previous.events?.finish()
        guard plugin != nil else { return }
        let (stream, continuation) = AsyncStream.makeStream(of: HubPayload.self)
        let listener = hub.listen(to: .auth) { continuation.yield($0) }
        auth.withLock { auth in
            auth.listener = listener
            auth.events = continuation
        }
        Task { [weak self] in
            for await payload in stream {
                guard let self else { return }
                await self.handleAuthEvent(payload)
            }
        }
    }

    /// Whether any model needs a signed-in user: an `@auth` rule with user pools.
    static func needsSignedInUser(_ catalog: ModelCatalog) -> Bool {
        catalog.tables.values.contains { table in
            table.schema.authRules.contains { rule in
                switch rule.provider {
                case .userPools: true
                case nil: rule.allow == .owner || rule.allow == .groups || rule.allow == .private
                default: false
                }
            }
        }
    }

    /// What sync asks before it syncs: whether a user is signed in with valid tokens; `nil`
    /// when there is no Auth plugin or the models need no user.
    func signedInUserCheck(_ catalog: ModelCatalog) -> (@Sendable () async -> Bool)? {
        guard let plugin = auth.withLock({ $0.plugin }), Self.needsSignedInUser(catalog) else { return nil }
        return { await Self.hasUserTokens(plugin) }
    }

    /// Whether `plugin`'s session holds valid user pool tokens: someone is signed in and the
    /// session has not expired.
    static func hasUserTokens(_ plugin: any AuthCategory) async -> Bool {
        let session: any AuthSession
        do {
            session = try await plugin.fetchAuthSession(options: nil)
        } catch {
            return false
        }
        guard let tokens = session as? any AuthCognitoTokensProvider else { return session.isSignedIn }
        if case .success = tokens.getCognitoTokens() { return true }
        return false
    }

    /// Whether the models need a signed-in user, so that `.auth` events matter.
    private var followsUser: Bool {
        guard case .success(let catalog) = catalog else { return false }
        return Self.needsSignedInUser(catalog)
    }

    private func handleAuthEvent(_ payload: HubPayload) async {
        guard followsUser else { return }
        switch payload.eventName {
        case HubPayload.EventName.Auth.signedIn:
            let userId = (payload.data as? any AuthUser)?.userId
            let expired = auth.withLock { auth in
                defer {
                    auth.expiredUserId = nil
                    auth.waitsForSignIn = false
                }
                return auth.expiredUserId
            }
            await stopSync()
            if let expired, expired != userId, configuration.clearsLocalDataOnSignOut {
                await clearLocalData(because: "another user signed in after the session of the previous one expired")
            }
            guard isOpen else { return }
            do {
                _ = try openEngine()
            } catch {
                reportAuthFollowing(error)
            }
        case HubPayload.EventName.Auth.sessionExpired:
            let user: (any AuthUser)?
            do {
                user = try await auth.withLock({ $0.plugin })?.getCurrentUser()
            } catch {
                user = nil
            }
            auth.withLock { auth in
                auth.expiredUserId = user?.userId ?? ""
                auth.waitsForSignIn = true
            }
            await stopSync()
            let pending = isOpen ? await pendingCount() : 0
            reportAuthFollowing(
                DataStoreError(
                    .sync,
                    "The session of the signed-in user expired, so DataStore stopped syncing; the outbox keeps "
                        + "the \(Self.changes(pending)) not yet sent. Sign the user in again (Amplify.Auth.signOut() "
                        + "and then Amplify.Auth.signIn(username:password:)) and sync starts again and sends them."
                )
            )
        case HubPayload.EventName.Auth.signedOut, HubPayload.EventName.Auth.userDeleted:
            let deleted = payload.eventName == HubPayload.EventName.Auth.userDeleted
            let expired = auth.withLock { auth in
                defer {
                    if deleted { auth.expiredUserId = nil }
                    auth.waitsForSignIn = true
                }
                return auth.expiredUserId
            }
            await stopSync()
            // After an expired session the user signs out to sign in again: their changes wait.
            guard configuration.clearsLocalDataOnSignOut, deleted || expired == nil else { return }
            await clearLocalData(because: deleted ? "the user was deleted" : "the user signed out")
        default:
            return
        }
    }

    /// The changes in the outbox, or 0 when it cannot be read (and that is reported).
    private func pendingCount() async -> Int {
        do {
            return try await withEngine(startingSync: false) { try await $0.outboxEvents().count }
        } catch {
            reportAuthFollowing(error)
            return 0
        }
    }

    /// Removes every record and the outbox, reporting the changes that were never sent.
    private func clearLocalData(because reason: String) async {
        do {
            let unsent = try await withEngine(startingSync: false) { try await $0.outboxEvents() }
            try await clearStore()
            guard !unsent.isEmpty else { return }
            let named = unsent.prefix(5).map { "\($0.mutationType) of \($0.modelName) '\($0.modelId)'" }
            let more = unsent.count > 5 ? " and \(unsent.count - 5) more" : ""
            reportAuthFollowing(
                DataStoreError(
                    .sync,
                    "DataStore removed its local data because \(reason), with \(Self.changes(unsent.count)) "
                        + "never sent to the backend: \(named.joined(separator: ", "))\(more). To keep them, wait for "
                        + "the outbox to empty (the Hub's outboxStatus) before signing out, or set "
                        + "DataStoreConfiguration.clearsLocalDataOnSignOut to false."
                )
            )
        } catch {
            reportAuthFollowing(
                DataStoreError(.storage, "DataStore could not remove its local data after \(reason): \(error)")
            )
        }
    }

    /// "1 change", "2 changes".
    private static func changes(_ count: Int) -> String {
        count == 1 ? "1 change" : "\(count) changes"
    }

    private func reportAuthFollowing(_ error: any Error) {
        let error = DataStoreError(error)
        if let handler = configuration.errorHandler {
            handler(error)
        } else {
            configuration.log(.init(level: .error, message: error.message))
        }
    }
}
