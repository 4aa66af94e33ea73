import AWSCognitoAuthPlugin
import Amplify
import Foundation
import StratusTesting
import Testing

/// Sign-up, sign-in, challenges, refresh and sign-out against moto's Cognito user pool and the
/// one `stratus serve` runs.
@Suite struct UserPoolTests {
    @Test(arguments: CognitoService.allCases) func signUpConfirmThenSignInWithSRP(
        _ service: CognitoService
    ) async throws {
        let cognito = try await TestCognito.start(service)
        let recorder = RecordingTransport()
        let hub = HubCategory()
        let events = HubRecorder(hub)
        let auth = try cognito.plugin(cognito.configuration(), recorder: recorder, hub: hub)
        let username = TestCognito.newUsername("signup")

        let signUp = try await auth.signUp(
            username: username,
            password: "Secret-pass1!",
            options: .init(userAttributes: [AuthUserAttribute(.email, value: "\(username)@example.com")])
        )
        #expect(!signUp.isSignUpComplete)
        guard case .confirmUser(_, _, let userId) = signUp.nextStep else {
            Issue.record("signUp's next step is \(signUp.nextStep), not confirmUser")
            return
        }
        #expect(userId == signUp.userID)
        #expect(
            recorder.calls[0].input["UserAttributes"] == [
                ["Name": "email", "Value": .string("\(username)@example.com")]
            ]
        )

        // An unconfirmed user's sign-in is refused with UserNotConfirmedException.
        let unconfirmed = try await auth.signIn(username: username, password: "Secret-pass1!", options: nil)
        #expect(unconfirmed.nextStep == .confirmSignUp(nil))
        #expect(!unconfirmed.isSignedIn)

        let confirmed = try await auth.confirmSignUp(
            for: username,
            confirmationCode: try await cognito.confirmationCode(for: username)
        )
        #expect(confirmed.isSignUpComplete)

        let signIn = try await auth.signIn(username: username, password: "Secret-pass1!", options: nil)
        #expect(signIn.isSignedIn)
        // moto refuses an unconfirmed user at InitiateAuth; the local pool once the password is
        // proven, so that the refusal tells nothing to someone without it.
        let refusedAt = service == .moto ? ["InitiateAuth"] : ["InitiateAuth", "RespondToAuthChallenge"]
        #expect(
            recorder.operations
                == ["SignUp"] + refusedAt + ["ConfirmSignUp", "InitiateAuth", "RespondToAuthChallenge"]
        )
        let initiate = recorder.calls[recorder.calls.count - 2].input
        #expect(initiate["AuthFlow"] == "USER_SRP_AUTH")
        #expect(initiate.value(at: "AuthParameters.SRP_A")?.stringValue?.isEmpty == false)
        #expect(initiate.value(at: "AuthParameters.PASSWORD") == nil)
        let answer = recorder.calls[recorder.calls.count - 1].input
        #expect(answer["ChallengeName"] == "PASSWORD_VERIFIER")
        #expect(answer.value(at: "ChallengeResponses.PASSWORD_CLAIM_SIGNATURE")?.stringValue?.count == 44)

        let user = try await auth.getCurrentUser()
        #expect(user.username == username)
        #expect(user.userId == userId)
        #expect(events.eventNames == [HubPayload.EventName.Auth.signedIn])
        #expect((events.lastPayload?.data as? AWSAuthUser)?.username == username)

        let attributes = try await auth.fetchUserAttributes()
        #expect(attributes.contains(AuthUserAttribute(.email, value: "\(username)@example.com")))
    }

    @Test(arguments: CognitoService.allCases) func passwordSignInAndSRPWithAClientSecret(
        _ service: CognitoService
    ) async throws {
        let cognito = try await TestCognito.start(service)
        let username = TestCognito.newUsername("secret")
        try await cognito.createUser(username)
        for flow in [AWSCognitoAuthConfiguration.AuthenticationFlowType.userPassword, .userSRP] {
            let recorder = RecordingTransport()
            let auth = try cognito.plugin(cognito.configuration(secret: true, flow: flow), recorder: recorder)
            let result = try await auth.signIn(username: username, password: "Secret-pass1!", options: nil)
            #expect(result.isSignedIn, "\(flow)")
            let expected = CognitoSRP.secretHash(
                username: username,
                clientId: cognito.secretClientId,
                clientSecret: cognito.clientSecret
            )
            #expect(recorder.calls[0].input.value(at: "AuthParameters.SECRET_HASH")?.stringValue == expected)
            #expect(recorder.calls[0].input["AuthFlow"]?.stringValue == flow.rawValue)
        }
    }

    @Test(arguments: CognitoService.allCases) func wrongPasswordAndUnknownUserKeepCognitosExceptionNames(
        _ service: CognitoService
    ) async throws {
        let cognito = try await TestCognito.start(service)
        let username = TestCognito.newUsername("wrong")
        try await cognito.createUser(username)
        let auth = try cognito.plugin(cognito.configuration(flow: .userPassword))

        await #expect {
            try await auth.signIn(username: username, password: "Not-the-password1!", options: nil)
        } throws: { error in
            guard let error = error as? AuthError, case .notAuthorized = error else { return false }
            return error.cognitoExceptionName == "NotAuthorizedException"
                && error.errorDescription == "NotAuthorizedException: Incorrect username or password."
                && error.recoverySuggestion
                    == "Check the username and password; when a token was refused, sign in again."
        }
        for flow in [AWSCognitoAuthConfiguration.AuthenticationFlowType.userPassword, .userSRP] {
            let options = AuthSignInRequest.Options(pluginOptions: AWSAuthSignInOptions(authFlowType: flow))
            await #expect {
                try await auth.signIn(username: "nobody-\(UUID())", password: "Secret-pass1!", options: options)
            } throws: { error in
                guard let error = error as? AuthError else { return false }
                switch (service, error) {
                case (.moto, .service):
                    return error.cognitoExceptionName == "UserNotFoundException"
                        && error.recoverySuggestion == "Check the username, or sign up first."
                case (.serve, .notAuthorized):
                    // PreventUserExistenceErrors, as new app clients have it: a wrong password's answer.
                    return error.errorDescription == "NotAuthorizedException: Incorrect username or password."
                default:
                    return false
                }
            }
        }
        #expect(try await auth.fetchAuthSession(options: nil).isSignedIn == false)
    }

    @Test(arguments: CognitoService.allCases) func newPasswordRequiredForAUserAnAdministratorCreated(
        _ service: CognitoService
    ) async throws {
        let cognito = try await TestCognito.start(service)
        let username = TestCognito.newUsername("created")
        try await cognito.createUser(username, temporaryPassword: "Temp-pass1!")
        let recorder = RecordingTransport()
        let auth = try cognito.plugin(cognito.configuration(), recorder: recorder)

        let first = try await auth.signIn(username: username, password: "Temp-pass1!", options: nil)
        guard case .confirmSignInWithNewPassword = first.nextStep else {
            Issue.record("next step is \(first.nextStep), not confirmSignInWithNewPassword")
            return
        }
        #expect(!first.isSignedIn)
        let second = try await auth.confirmSignIn(challengeResponse: "Chosen-pass1!", options: nil)
        #expect(second.isSignedIn)
        let answer = try #require(recorder.calls.last?.input)
        #expect(answer["ChallengeName"] == "NEW_PASSWORD_REQUIRED")
        #expect(answer.value(at: "ChallengeResponses.NEW_PASSWORD") == "Chosen-pass1!")
        #expect(answer.value(at: "ChallengeResponses.USERNAME")?.stringValue == username)

        await auth.signOut(options: nil)
        // USER_PASSWORD_AUTH accepts the new password.
        let options = AuthSignInRequest.Options(pluginOptions: AWSAuthSignInOptions(authFlowType: .userPassword))
        #expect(try await auth.signIn(username: username, password: "Chosen-pass1!", options: options).isSignedIn)

        await #expect {
            try await auth.confirmSignIn(challengeResponse: "again", options: nil)
        } throws: { error in
            (error as? AuthError)?.errorDescription == "No sign-in is waiting for an answer."
        }
    }

    @Test(arguments: CognitoService.allCases) func tokensAreRefreshedOnceForConcurrentCallersAfterExpiry(
        _ service: CognitoService
    ) async throws {
        let cognito = try await TestCognito.start(service)
        let username = TestCognito.newUsername("refresh")
        try await cognito.createUser(username)
        let recorder = RecordingTransport()
        let clock = TestClock()
        let auth = try cognito.plugin(cognito.configuration(flow: .userPassword), recorder: recorder, clock: clock)
        _ = try await auth.signIn(username: username, password: "Secret-pass1!", options: nil)
        let before = try session(await auth.fetchAuthSession(options: nil)).getUserPoolTokens().get()
        #expect(recorder.operations == ["InitiateAuth"])

        clock.advance(by: 3600)
        let sessions = try await withThrowingTaskGroup(of: AWSCognitoUserPoolTokens.self) { group in
            for _ in 0..<8 {
                group.addTask { try session(await auth.fetchAuthSession(options: nil)).getUserPoolTokens().get() }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        let refreshes = recorder.calls.filter { $0.input["AuthFlow"] == "REFRESH_TOKEN_AUTH" }
        #expect(refreshes.count == 1)
        #expect(refreshes.first?.input.value(at: "AuthParameters.REFRESH_TOKEN")?.stringValue == before.refreshToken)
        #expect(Set(sessions.map(\.accessToken)).count == 1)
        let after = try #require(sessions.first)
        #expect(after.accessToken != before.accessToken)
        #expect(after.refreshToken == before.refreshToken)
        #expect(after.expiration > clock.now.addingTimeInterval(3000))

        _ = try await auth.fetchAuthSession(options: AuthFetchSessionRequest.Options(forceRefresh: true))
        #expect(recorder.calls.filter { $0.input["AuthFlow"] == "REFRESH_TOKEN_AUTH" }.count == 2)
    }

    @Test(arguments: CognitoService.allCases) func globalSignOutExpiresTheSessionOfAnotherDevice(
        _ service: CognitoService
    ) async throws {
        let cognito = try await TestCognito.start(service)
        let username = TestCognito.newUsername("global")
        try await cognito.createUser(username)
        let hub = HubCategory()
        let events = HubRecorder(hub)
        let phone = try cognito.plugin(cognito.configuration(flow: .userPassword))
        let laptop = try cognito.plugin(cognito.configuration(flow: .userPassword), hub: hub)
        _ = try await phone.signIn(username: username, password: "Secret-pass1!", options: nil)
        _ = try await laptop.signIn(username: username, password: "Secret-pass1!", options: nil)

        let result = await phone.signOut(options: AuthSignOutRequest.Options(globalSignOut: true))
        switch (service, try #require(result as? AWSCognitoSignOutResult)) {
        case (.moto, .partial(let revokeError, let globalError)):
            // moto has no RevokeToken: the global sign-out worked, the revocation did not.
            #expect(globalError == nil)
            #expect(revokeError != nil)
        case (.serve, .complete):
            break
        default:
            Issue.record("sign-out result is \(result)")
            return
        }
        #expect(try await phone.fetchAuthSession(options: nil).isSignedIn == false)
        await #expect {
            try await phone.getCurrentUser()
        } throws: { error in
            guard let error = error as? AuthError, case .signedOut = error else { return false }
            return error.errorDescription == "There is no user signed in."
        }

        let expired = try session(
            await laptop.fetchAuthSession(options: AuthFetchSessionRequest.Options(forceRefresh: true))
        )
        #expect(expired.isSignedIn)
        guard case .failure(.sessionExpired(let message, _, _)) = expired.getUserPoolTokens() else {
            Issue.record("tokens: \(expired.getUserPoolTokens())")
            return
        }
        #expect(message == "The session expired: the refresh token was refused.")
        #expect(events.eventNames == [HubPayload.EventName.Auth.signedIn, HubPayload.EventName.Auth.sessionExpired])
        await laptop.signOut(options: nil)
        #expect(events.eventNames.last == HubPayload.EventName.Auth.signedOut)
    }

    @Test(arguments: CognitoService.allCases) func passwordsAndAttributesOfTheSignedInUser(
        _ service: CognitoService
    ) async throws {
        let cognito = try await TestCognito.start(service)
        let username = TestCognito.newUsername("change")
        try await cognito.createUser(username, email: "\(username)@example.com")
        let recorder = RecordingTransport()
        let auth = try cognito.plugin(cognito.configuration(flow: .userPassword), recorder: recorder)
        _ = try await auth.signIn(username: username, password: "Secret-pass1!", options: nil)

        await #expect {
            try await auth.update(oldPassword: "Wrong-pass1!", to: "Changed-pass1!")
        } throws: { error in
            (error as? AuthError)?.cognitoExceptionName == "NotAuthorizedException"
        }
        try await auth.update(oldPassword: "Secret-pass1!", to: "Changed-pass1!")
        let update = try await auth.update(userAttribute: AuthUserAttribute(.name, value: "Zoë"))
        #expect(update.isUpdated)
        #expect(try await auth.fetchUserAttributes().contains(AuthUserAttribute(.name, value: "Zoë")))
        await auth.signOut(options: nil)
        #expect(try await auth.signIn(username: username, password: "Changed-pass1!", options: nil).isSignedIn)
        await auth.signOut(options: nil)

        let reset = try await auth.resetPassword(for: username)
        #expect(!reset.isPasswordReset)
        let code: String
        let wrongCode: String
        let wrongCodeException: String
        switch service {
        case .moto:
            // moto hands the reset code back in a header of its own.
            code = try #require(recorder.calls.last?.headers["x-moto-forgot-password-confirmation-code"])
            (wrongCode, wrongCodeException) = ("moto-confirmation-code:1", "ExpiredCodeException")
        case .serve:
            // The local pool printed the code and kept it in the data directory.
            code = try #require(try await cognito.localPool?.pendingCode(for: username, passwordReset: true))
            (wrongCode, wrongCodeException) = (code == "000000" ? "111111" : "000000", "CodeMismatchException")
        }
        await #expect {
            try await auth.confirmResetPassword(for: username, with: "Reset-pass1!", confirmationCode: wrongCode)
        } throws: { error in
            (error as? AuthError)?.cognitoExceptionName == wrongCodeException
        }
        try await auth.confirmResetPassword(for: username, with: "Reset-pass1!", confirmationCode: code)
        #expect(try await auth.signIn(username: username, password: "Reset-pass1!", options: nil).isSignedIn)
    }

    @Test(arguments: CognitoService.allCases) func aSecondSignInIsRefusedUntilSignOut(
        _ service: CognitoService
    ) async throws {
        let cognito = try await TestCognito.start(service)
        let username = TestCognito.newUsername("twice")
        try await cognito.createUser(username)
        let auth = try cognito.plugin(cognito.configuration(flow: .userPassword))
        _ = try await auth.signIn(username: username, password: "Secret-pass1!", options: nil)
        await #expect {
            try await auth.signIn(username: username, password: "Secret-pass1!", options: nil)
        } throws: { error in
            guard let error = error as? AuthError, case .invalidState = error else { return false }
            return error.errorDescription == "The user '\(username)' is already signed in."
        }
    }
}

/// The session as the Cognito plugin's type.
func session(_ session: any AuthSession) throws -> AWSAuthCognitoSession {
    try #require(session as? AWSAuthCognitoSession)
}
