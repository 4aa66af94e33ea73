/// The callback forms of Amplify iOS v1's Auth category.
extension AuthCategory {
    /// Fetches the current session and calls `listener` with it or the error: the callback form
    /// of ``fetchAuthSession(options:)``.
    ///
    /// `listener` runs once, on a task of its own, not on the main thread. It is not `@Sendable`,
    /// so that a listener that fills a local and signals a semaphore, as the documentation's ID
    /// token provider does, compiles as written; whatever it touches, the caller synchronizes.
    ///
    /// ```swift
    /// let semaphore = DispatchSemaphore(value: 0)
    /// var result: Result<String, Error> = .failure(AuthError.unknown("Could not retrieve Cognito token"))
    /// Amplify.Auth.fetchAuthSession { (event) in
    ///     defer { semaphore.signal() }
    ///     switch event {
    ///     case .success(let session):
    ///         if let cognitoTokenResult = (session as? AuthCognitoTokensProvider)?.getCognitoTokens() {
    ///             result = cognitoTokenResult.map(\.idToken).mapError { $0 }
    ///         }
    ///     case .failure(let error):
    ///         result = .failure(error)
    ///     }
    /// }
    /// semaphore.wait()
    /// ```
    ///
    /// Waiting on a semaphore blocks a thread of the pool that runs Swift's tasks while the fetch
    /// needs another: prefer `try await Amplify.Auth.fetchAuthSession()` in new code.
    ///
    /// An error that is not an ``AuthError`` (which an Auth plugin does not throw) reaches
    /// `listener` as ``AuthError/unknown(_:_:)`` quoting it.
    @discardableResult
    public func fetchAuthSession(
        options: AuthFetchSessionRequest.Options? = nil,
        listener: @escaping (Result<any AuthSession, AuthError>) -> Void
    ) -> Task<Void, Never> {
        let listener = UncheckedListener(call: listener)
        return Task {
            let result: Result<any AuthSession, AuthError>
            do {
                result = .success(try await fetchAuthSession(options: options))
            } catch let error as AuthError {
                result = .failure(error)
            } catch {
                result = .failure(.unknown("The Auth plugin threw \(error).", nil))
            }
            listener.call(result)
        }
    }
}

/// A listener that is not `@Sendable`, called once from the task that fetches: its caller
/// synchronizes what it touches (see ``AuthCategory/fetchAuthSession(options:listener:)``).
private struct UncheckedListener<Value>: @unchecked Sendable {
    let call: (Value) -> Void
}
