import AWSPluginsCore
import Foundation
import StratusServer
import StratusTesting
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The local Cognito over HTTP: `POST /` by `X-Amz-Target`, the administrator's signature, and
/// the JWKS document.
@Suite struct CognitoEndpointTests {
    /// Sends `body` to `POST /` of `backend` with `target`; returns the status and body.
    static func post(
        _ backend: LocalBackend,
        target: String?,
        body: String,
        signedWith credentials: AWSCredentials? = nil
    ) async throws -> (Int, String) {
        var request = URLRequest(url: backend.origin.appending(path: "/"))
        request.httpMethod = "POST"
        request.httpBody = Data(body.utf8)
        request.setValue("application/x-amz-json-1.1", forHTTPHeaderField: "Content-Type")
        if let target { request.setValue(target, forHTTPHeaderField: "X-Amz-Target") }
        if let credentials {
            request = SigV4Signer(service: "cognito-idp", region: "us-east-1").sign(request, credentials: credentials)
        }
        let (data, response) = try await URLSession.shared.data(for: request)
        let status = (response as? HTTPURLResponse)?.statusCode ?? 0
        #expect(
            (response as? HTTPURLResponse)?.value(forHTTPHeaderField: "Content-Type") == "application/x-amz-json-1.1"
        )
        return (status, String(decoding: data, as: UTF8.self))
    }

    @Test func targetsSignaturesAndKeysOverHTTP() async throws {
        let backend = try await LocalBackend.start(
            schema: "type Note @model { id: ID! }",
            cognito: CognitoConfiguration(userPoolId: "us-east-1_Http")
        )
        do {
            let listUsers = #"{"UserPoolId":"us-east-1_Http"}"#
            let noTarget = try await Self.post(backend, target: nil, body: listUsers)
            #expect(noTarget.0 == 400)
            #expect(
                noTarget.1
                    == #"{"__type":"UnknownOperationException","message":"The request has no X-Amz-Target header; name the operation, such as AWSCognitoIdentityProviderService.InitiateAuth."}"#
            )
            let unsigned = try await Self.post(
                backend,
                target: "AWSCognitoIdentityProviderService.ListUsers",
                body: listUsers
            )
            #expect(unsigned.0 == 400)
            #expect(
                unsigned.1
                    == #"{"__type":"MissingAuthenticationTokenException","message":"Missing Authentication Token"}"#
            )
            let stranger = try await Self.post(
                backend,
                target: "AWSCognitoIdentityProviderService.ListUsers",
                body: listUsers,
                signedWith: AWSCredentials(accessKeyId: "AKIDSTRANGER", secretAccessKey: "guess")
            )
            #expect(stranger.0 == 400)
            #expect(stranger.1.hasPrefix(#"{"__type":"UnrecognizedClientException""#), "\(stranger.1)")
            let signed = try await Self.post(
                backend,
                target: "AWSCognitoIdentityProviderService.ListUsers",
                body: listUsers,
                signedWith: backend.credentials
            )
            #expect(signed.0 == 200)
            #expect(signed.1 == #"{"Users":[]}"#)
            let notJSON = try await Self.post(backend, target: "AWSCognitoIdentityService.GetId", body: "{")
            #expect(notJSON.0 == 400)
            #expect(
                notJSON.1 == #"{"__type":"SerializationException","message":"The request body is not a JSON object."}"#
            )

            let (keys, response) = try await URLSession.shared.data(
                from: backend.origin.appending(path: "us-east-1_Http/.well-known/jwks.json")
            )
            #expect((response as? HTTPURLResponse)?.statusCode == 200)
            let jwks = try JSON(parsing: keys)
            #expect(jwks["keys"]?[0]?["kty"] == "RSA")
            #expect(jwks["keys"]?[0]?["alg"] == "RS256")
            #expect(jwks["keys"]?[0]?["e"] == "AQAB")
            #expect(String(decoding: keys, as: UTF8.self) == backend.cognito?.jwks)
        } catch {
            await backend.stop()
            throw error
        }
        await backend.stop()
    }
}
