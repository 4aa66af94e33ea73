import Amplify
import Foundation

extension CognitoAuthEngine {
    func fetchUserAttributes() async throws(AuthError) -> [AuthUserAttribute] {
        let (_, client) = try userPool()
        let output = try await client.call("GetUser", ["AccessToken": .string(try await accessToken())])
        return (output["UserAttributes"]?.arrayValue ?? []).compactMap { attribute in
            guard let name = attribute["Name"]?.stringValue, let value = attribute["Value"]?.stringValue else {
                return nil
            }
            return AuthUserAttribute(AuthUserAttributeKey(rawValue: name), value: value)
        }
    }

    func update(userAttribute: AuthUserAttribute) async throws(AuthError) -> AuthUpdateAttributeResult {
        let (_, client) = try userPool()
        let output = try await client.call(
            "UpdateUserAttributes",
            [
                "AccessToken": .string(try await accessToken()),
                "UserAttributes": [
                    ["Name": .string(userAttribute.key.rawValue), "Value": .string(userAttribute.value)]
                ],
            ]
        )
        if let first = output["CodeDeliveryDetailsList"]?[0], let details = Self.delivery(first) {
            return AuthUpdateAttributeResult(isUpdated: false, nextStep: .confirmAttributeWithCode(details, nil))
        }
        return AuthUpdateAttributeResult(isUpdated: true, nextStep: .done)
    }

    func changePassword(old: String, new: String) async throws(AuthError) {
        let (_, client) = try userPool()
        _ = try await client.call(
            "ChangePassword",
            [
                "AccessToken": .string(try await accessToken()),
                "PreviousPassword": .string(old),
                "ProposedPassword": .string(new),
            ]
        )
    }

    func resetPassword(username: String) async throws(AuthError) -> AuthResetPasswordResult {
        let (_, client) = try userPool()
        let output = try await client.call("ForgotPassword", try clientParameters(username: username))
        let details =
            Self.delivery(output["CodeDeliveryDetails"]) ?? AuthCodeDeliveryDetails(destination: .unknown(nil))
        return AuthResetPasswordResult(isPasswordReset: false, nextStep: .confirmResetPasswordWithCode(details, nil))
    }

    func confirmResetPassword(username: String, newPassword: String, code: String) async throws(AuthError) {
        let (_, client) = try userPool()
        var input = try clientParameters(username: username)
        input["Password"] = .string(newPassword)
        input["ConfirmationCode"] = .string(code)
        _ = try await client.call("ConfirmForgotPassword", input)
    }

    func deleteUser() async throws(AuthError) {
        let (_, client) = try userPool()
        _ = try await client.call("DeleteUser", ["AccessToken": .string(try await accessToken())])
        try forgetDeletedUser()
    }
}
