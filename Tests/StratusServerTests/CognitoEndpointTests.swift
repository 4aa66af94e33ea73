import AWSWire
import Foundation
import StratusCodegen
import StratusCognito
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

    /// botocore signs `ListUsers` for the pool `us-east-1_Http` with `ACCESS_KEY SECRET` (its
    /// arguments) and sends it to `ORIGIN`; prints the status and body.
    static let botocoreListUsers = """
        import json, sys, urllib.request, urllib.error
        from botocore.auth import SigV4Auth
        from botocore.awsrequest import AWSRequest
        from botocore.credentials import Credentials
        origin, key, secret = sys.stdin.read().split()
        request = AWSRequest(method="POST", url=origin + "/", data=b'{"UserPoolId":"us-east-1_Http"}', headers={
            "Content-Type": "application/x-amz-json-1.1",
            "X-Amz-Target": "AWSCognitoIdentityProviderService.ListUsers"})
        SigV4Auth(Credentials(key, secret), "cognito-idp", "us-east-1").add_auth(request)
        prepared = request.prepare()
        sent = urllib.request.Request(prepared.url, data=prepared.body, headers=dict(prepared.headers), method="POST")
        try:
            with urllib.request.urlopen(sent) as response:
                print(response.status, response.read().decode())
        except urllib.error.HTTPError as error:
            print(error.code, error.read().decode())
        """

    @Test func withoutIAMCredentialsTheAdministratorSignsWithThePoolsOwn() async throws {
        let directory = temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let schema = try SchemaParser().parse("type Note @model { id: ID! }")
        let server = try StratusServer(schema: schema, dataDirectory: directory, log: { _ in })
        defer { try? server.close() }
        let pool = try await CognitoUserPool(
            configuration: CognitoConfiguration(userPoolId: "us-east-1_Http"),
            dataDirectory: directory,
            log: { _ in }
        )
        // As `stratus serve` runs without "iamCredentials" in its configuration.
        let http = StratusHTTPServer(
            server: server,
            authorization: ServerAuthorization(defaultMode: .apiKey, apiKeys: [APIKey(value: "da2-test")]),
            cognito: pool,
            log: { _ in }
        )
        let (ports, continuation) = AsyncStream.makeStream(of: Int.self)
        let task = Task { try await http.run(port: 0) { continuation.yield($0) } }
        defer { task.cancel() }
        var iterator = ports.makeAsyncIterator()
        let port = try #require(await iterator.next())
        let origin = URL(string: "http://127.0.0.1:\(port)")!
        func listUsers(_ headers: [String: String]) async throws -> (Int, String) {
            var request = URLRequest(url: origin.appending(path: "/"))
            request.httpMethod = "POST"
            request.httpBody = Data(#"{"UserPoolId":"us-east-1_Http"}"#.utf8)
            request.setValue("AWSCognitoIdentityProviderService.ListUsers", forHTTPHeaderField: "X-Amz-Target")
            for (name, value) in headers { request.setValue(value, forHTTPHeaderField: name) }
            let (data, response) = try await URLSession.shared.data(for: request)
            return ((response as? HTTPURLResponse)?.statusCode ?? 0, String(decoding: data, as: UTF8.self))
        }

        // Any header of the right scheme was enough.
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "yyyyMMdd'T'HHmmss'Z'"
        let amzDate = formatter.string(from: Date())
        let forged = try await listUsers([
            "Authorization": "AWS4-HMAC-SHA256 Credential=AKIDANYONE/\(amzDate.prefix(8))/us-east-1/cognito-idp/"
                + "aws4_request, SignedHeaders=host;x-amz-date, Signature=0000",
            "X-Amz-Date": amzDate,
        ])
        #expect(forged.0 == 400)
        #expect(
            forged.1
                == #"{"__type":"UnrecognizedClientException","message":"The security token included in the request is invalid."}"#
        )
        #expect(
            try await listUsers([:]).1
                == #"{"__type":"MissingAuthenticationTokenException","message":"Missing Authentication Token"}"#
        )
        let admin = pool.administratorCredentials
        #expect(admin.accessKeyId.hasPrefix("AKIA") && admin.accessKeyId.count == 20)
        var wrongSecret = URLRequest(url: origin.appending(path: "/"))
        wrongSecret.httpMethod = "POST"
        wrongSecret.httpBody = Data(#"{"UserPoolId":"us-east-1_Http"}"#.utf8)
        wrongSecret.setValue("AWSCognitoIdentityProviderService.ListUsers", forHTTPHeaderField: "X-Amz-Target")
        wrongSecret = SigV4Signer(service: "cognito-idp", region: "us-east-1").sign(
            wrongSecret,
            credentials: AWSCredentials(accessKeyId: admin.accessKeyId, secretAccessKey: "not-the-secret")
        )
        let (data, _) = try await URLSession.shared.data(for: wrongSecret)
        #expect(
            String(decoding: data, as: UTF8.self)
                == #"{"__type":"InvalidSignatureException","message":"The request signature we calculated does not match the signature you provided. Check your AWS Secret Access Key and signing method."}"#
        )

        // botocore, the reference signer, with the pool's credentials.
        let signed = try await runPython(
            Self.botocoreListUsers,
            input: "\(origin.absoluteString) \(admin.accessKeyId) \(admin.secretAccessKey)"
        )
        #expect(signed.status == 0, "\(signed.output)")
        #expect(signed.output == #"200 {"Users":[]}"# + "\n")

        // The same credentials after a restart: they are kept with the pool's state.
        let reopened = try await CognitoUserPool(
            configuration: CognitoConfiguration(userPoolId: "us-east-1_Http"),
            dataDirectory: directory,
            log: { _ in }
        )
        #expect(reopened.administratorCredentials == admin)
        task.cancel()
        _ = await task.result
    }
}
