import Foundation
import HTTPTypes
import Hummingbird
import StratusCognito
import StratusServer

/// The Users page's admin API: the local Cognito's users and the codes it would have sent, and
/// the administrator's operations on them, run by the pool as it runs signed calls.
extension ConsoleEndpoint {
    /// Whether `path` is one of the Users page's routes.
    static func isUsersRoute(_ path: String) -> Bool {
        path == "/console/api/users" || path.hasPrefix("/console/api/users/") || path == "/console/api/inbox"
    }

    /// The routes of the Users page, as the admin API's refusal of an unknown route lists them.
    static let usersRoutes =
        "GET /console/api/users, GET /console/api/inbox, POST /console/api/users (create), and POST "
        + "/console/api/users/confirm, /disable, /enable, /delete, /groups and /password"

    /// The answer to an authorized request of the Users page:
    ///
    /// - `GET /console/api/users`: `{"users": [{"username", "status", "enabled", "attributes",
    ///   "groups"}], "groups": [<the pool's groups>]}`, by username.
    /// - `GET /console/api/inbox`: `{"capacity", "codes": [{"time", "username", "destination",
    ///   "purpose", "code"}]}`, newest first: the codes the pool would have sent.
    /// - `POST /console/api/users` with `{"username", "password", "email"?, "temporary"?}`: a new
    ///   user (`AdminCreateUser`), whose password is permanent unless `temporary` is true.
    /// - `POST /console/api/users/{confirm,disable,enable,delete}` with `{"username"}`.
    /// - `POST /console/api/users/groups` with `{"username", "group", "member"}`: adds the user
    ///   to the group (`member` true) or removes it.
    /// - `POST /console/api/users/password` with `{"username", "password", "temporary"?}`: sets a
    ///   new password (`AdminSetUserPassword`), to be changed at the next sign-in when temporary.
    ///
    /// Each `POST` answers the user as it is afterwards (`{"deleted": <username>}` for a
    /// deletion); a refusal of the pool keeps its `__type` as the `errorType`.
    func users(_ request: Request) async -> Response {
        guard let cognito else {
            return Self.refusal(
                .notFound,
                "The server has no local Cognito, so there are no users to manage: start stratus serve with --auth.",
                json: true
            )
        }
        let path = request.uri.path
        switch (request.method, path) {
        case (.get, "/console/api/users"):
            return await listUsers(cognito)
        case (.get, "/console/api/inbox"):
            return Self.jsonResponse([
                "capacity": .int(CognitoUserPool.sentCodesKept),
                "codes": .array(cognito.sentCodes().map(Self.json(of:))),
            ])
        case (.post, _):
            return await changeUser(request, cognito: cognito)
        default:
            return Self.refusal(
                .notFound,
                "The admin API has no \(request.method.rawValue) \(path). The Users page's routes are \(Self.usersRoutes).",
                json: true
            )
        }
    }

    /// `GET /console/api/users`.
    func listUsers(_ cognito: CognitoUserPool) async -> Response {
        let users: [CognitoUserPool.UserSummary]
        do {
            users = try await cognito.listUsers()
        } catch {
            return Self.refusal(.internalServerError, "Cannot list the local Cognito's users: \(error)", json: true)
        }
        let groups = await cognito.administer("ListGroups", [:])
        guard groups.status == 200 else { return Self.cognitoRefusal(groups.body, operation: "ListGroups") }
        let names = (groups.body["Groups"]?.arrayValue ?? []).compactMap { $0["GroupName"]?.stringValue }
        return Self.jsonResponse([
            "users": .array(users.sorted { $0.username < $1.username }.map(Self.json(of:))),
            "groups": .array(names.sorted().map { .string($0) }),
        ])
    }

    /// A `POST` of the Users page: the operations its path names, run in turn on the user its
    /// body names (each step's input gets the `Username`).
    func changeUser(_ request: Request, cognito: CognitoUserPool) async -> Response {
        let body: JSONObject
        switch await Self.objectBody(of: request, example: #"{"username": "alice"}"#) {
        case .success(let object): body = object
        case .failure(let refusal): return refusal.response
        }
        let path = request.uri.path
        let action = path == "/console/api/users" ? "create" : String(path.dropFirst("/console/api/users/".count))
        guard let username = body["username"]?.stringValue, !username.isEmpty else {
            return Self.refusal(
                .badRequest,
                #"The body names no user: send {"username": "alice"} with the user's name."#,
                json: true
            )
        }
        let steps: [(operation: String, input: JSONObject)]
        switch action {
        case "create":
            guard let password = body["password"]?.stringValue, !password.isEmpty else {
                return Self.refusal(
                    .badRequest,
                    #"A new user needs a password: send {"username": "alice", "password": "…", "email": "…"}."#,
                    json: true
                )
            }
            var attributes: [JSON] = []
            if let email = body["email"]?.stringValue, !email.isEmpty {
                attributes.append(["Name": "email", "Value": .string(email)])
            }
            let create: JSONObject = ["TemporaryPassword": .string(password), "UserAttributes": .array(attributes)]
            // The password is made permanent, unless the user is to choose one at the first sign-in.
            let permanent: JSONObject = ["Password": .string(password), "Permanent": true]
            steps =
                body["temporary"]?.boolValue == true
                ? [("AdminCreateUser", create)] : [("AdminCreateUser", create), ("AdminSetUserPassword", permanent)]
        case "confirm": steps = [("AdminConfirmSignUp", [:])]
        case "disable": steps = [("AdminDisableUser", [:])]
        case "enable": steps = [("AdminEnableUser", [:])]
        case "delete": steps = [("AdminDeleteUser", [:])]
        case "groups":
            guard let group = body["group"]?.stringValue, let member = body["member"]?.boolValue else {
                return Self.refusal(
                    .badRequest,
                    #"Name the group and whether the user joins it: {"username": "alice", "group": "admins", "#
                        + #""member": true} (false removes the user from it)."#,
                    json: true
                )
            }
            steps = [
                (
                    member ? "AdminAddUserToGroup" : "AdminRemoveUserFromGroup",
                    ["GroupName": .string(group)]
                )
            ]
        case "password":
            guard let password = body["password"]?.stringValue, !password.isEmpty else {
                return Self.refusal(
                    .badRequest,
                    #"Give the new password: {"username": "alice", "password": "…", "temporary": false}."#,
                    json: true
                )
            }
            steps = [
                (
                    "AdminSetUserPassword",
                    [
                        "Password": .string(password),
                        "Permanent": .bool(body["temporary"]?.boolValue != true),
                    ]
                )
            ]
        default:
            return Self.refusal(
                .notFound,
                "The admin API has no POST \(path). The Users page's routes are \(Self.usersRoutes).",
                json: true
            )
        }
        // A pool whose users sign in with their email names a new user by an id of its own.
        var name = username
        for (operation, input) in steps {
            var input = input
            input["Username"] = .string(name)
            let answer = await cognito.administer(operation, input)
            guard answer.status == 200 else {
                return Self.cognitoRefusal(answer.body, operation: operation, username: username)
            }
            if let created = answer.body["User"]?["Username"]?.stringValue { name = created }
        }
        if action == "delete" { return Self.jsonResponse(["deleted": .string(name)]) }
        return await user(name, cognito: cognito)
    }

    /// `{"user": …}`: `username` as it is now.
    func user(_ username: String, cognito: CognitoUserPool) async -> Response {
        do {
            guard let user = try await cognito.listUsers().first(where: { $0.username == username }) else {
                return Self.refusal(.notFound, "There is no user '\(username)' any more.", json: true)
            }
            return Self.jsonResponse(["user": Self.json(of: user)])
        } catch {
            return Self.refusal(.internalServerError, "Cannot list the local Cognito's users: \(error)", json: true)
        }
    }

    /// The JSON object `request` carries.
    static func objectBody(of request: Request, example: String) async -> Result<JSONObject, Refused> {
        do {
            let bytes = try await request.body.collect(upTo: 1 << 20)
            guard let object = try JSON(parsing: Data(buffer: bytes)).objectValue else {
                return .failure(
                    Refused(
                        response: refusal(.badRequest, "The body is not a JSON object. Send \(example).", json: true)
                    )
                )
            }
            return .success(object)
        } catch {
            return .failure(Refused(response: refusal(.badRequest, "The body is not JSON: \(error)", json: true)))
        }
    }

    /// The pool's refusal of `operation` (`{"__type", "message"}`), in the admin API's error
    /// shape with the pool's type, and what to do about it.
    static func cognitoRefusal(_ body: JSON, operation: String, username: String? = nil) -> Response {
        let type = body["__type"]?.stringValue ?? "InternalErrorException"
        let message = body["message"]?.stringValue ?? body.text
        let name = username.map { "'\($0)'" } ?? "the user"
        let fix: String
        let status: HTTPResponse.Status
        switch type {
        case "UsernameExistsException":
            (status, fix) = (.conflict, "Choose another username, or delete the user \(name) first.")
        case "UserNotFoundException":
            (status, fix) = (.notFound, "There is no user \(name): reload the list of users.")
        case "ResourceNotFoundException":
            (status, fix) = (.notFound, "Name one of the pool's groups (GET /console/api/users lists them).")
        case "InvalidPasswordException":
            (status, fix) = (.badRequest, "Choose a password the pool's policy accepts.")
        case "NotAuthorizedException" where operation == "AdminConfirmSignUp":
            (status, fix) = (.conflict, "Only an UNCONFIRMED user is confirmed.")
        case "InternalErrorException":
            (status, fix) = (.internalServerError, "")
        default:
            (status, fix) = (.badRequest, "")
        }
        let sentence = message.hasSuffix(".") ? message : message + "."
        let text = "\(operation) refused: \(sentence)" + (fix.isEmpty ? "" : " \(fix)")
        return jsonResponse(
            ["errors": [["errorType": .string(type), "message": .string(text)]]],
            status: status
        )
    }

    static func json(of user: CognitoUserPool.UserSummary) -> JSON {
        .object(
            JSONObject([
                ("username", .string(user.username)), ("status", .string(user.status)),
                ("enabled", .bool(user.enabled)),
                (
                    "attributes",
                    .object(JSONObject(user.attributes.sorted { $0.key < $1.key }.map { ($0.key, .string($0.value)) }))
                ),
                ("groups", .array(user.groups.map { .string($0) })),
            ])
        )
    }

    static func json(of code: CognitoUserPool.SentCode) -> JSON {
        .object(
            JSONObject([
                ("time", timestamp(code.time)), ("username", .string(code.username)),
                ("destination", code.destination.map { .string($0) } ?? .null),
                ("purpose", .string(code.purpose.rawValue)), ("code", .string(code.code)),
            ])
        )
    }
}
