import Foundation
import StratusServer

/// A group of the pool: one of the configuration (stored when the pool opens), or one created
/// with `CreateGroup`.
struct CognitoGroup: CognitoRecord, Hashable {
    static let kind = "group"
    var key: String { name }

    var name: String
    var description: String?
    var precedence: Int?
    var created: Date
    var modified: Date
}

extension CognitoUserPool {
    /// The operations on groups: `CreateGroup`, `GetGroup`, `ListGroups`, `DeleteGroup`.
    static let groupOperations: Set<String> = ["CreateGroup", "GetGroup", "ListGroups", "DeleteGroup"]

    /// Answers one of ``groupOperations``, for a pool already checked.
    func groupOperation(_ operation: String, _ input: CognitoInput) async throws -> JSONObject {
        switch operation {
        case "ListGroups":
            return ["Groups": .array(try await allGroups().map { .object(describe($0)) })]
        case "CreateGroup":
            let name = try input.string("GroupName")
            guard !name.isEmpty, name.count <= 128, !name.contains(where: \.isWhitespace) else {
                throw CognitoError.invalidParameter(
                    "GroupName should be a non-empty string of up to 128 characters without spaces."
                )
            }
            guard try await group(named: name) == nil else {
                throw CognitoError("GroupExistsException", "A group with the name \(name) already exists.")
            }
            let precedence: Int?
            switch input["Precedence"] {
            case nil, .null: precedence = nil
            case .some(let value):
                guard let number = value.intValue, number >= 0 else {
                    throw CognitoError.invalidParameter("Precedence should be a non-negative integer.")
                }
                precedence = number
            }
            let now = clock()
            let group = CognitoGroup(
                name: name,
                description: try input.optionalString("Description"),
                precedence: precedence,
                created: now,
                modified: now
            )
            try await store.write(group)
            return ["Group": .object(describe(group))]
        case "GetGroup":
            let name = try input.string("GroupName")
            guard let group = try await group(named: name) else { throw CognitoError.groupNotFound }
            return ["Group": .object(describe(group))]
        case "DeleteGroup":
            let name = try input.string("GroupName")
            guard try await group(named: name) != nil else { throw CognitoError.groupNotFound }
            try await store.delete(CognitoGroup.self, name)
            for var user in try await store.all(CognitoUser.self) where user.groups.contains(name) {
                user.groups.removeAll { $0 == name }
                user.modified = clock()
                try await store.write(user)
            }
            return [:]
        default:
            throw CognitoError.unknownOperation("AWSCognitoIdentityProviderService.\(operation)")
        }
    }

    /// The group `name`, if the pool has one.
    func group(named name: String) async throws -> CognitoGroup? {
        try await store.read(CognitoGroup.self, name)
    }

    /// Every group, by name.
    func allGroups() async throws -> [CognitoGroup] {
        try await store.all(CognitoGroup.self).sorted { $0.name < $1.name }
    }

    /// Stores the configuration's groups the pool does not have yet.
    func storeConfiguredGroups() async throws {
        for name in configuration.groups {
            guard try await group(named: name) == nil else { continue }
            try await store.write(CognitoGroup(name: name, created: clock(), modified: clock()))
        }
    }

    /// A group as `CreateGroup`, `GetGroup`, `ListGroups` and `AdminListGroupsForUser` describe it.
    func describe(_ group: CognitoGroup) -> JSONObject {
        var object: JSONObject = [
            "GroupName": .string(group.name),
            "UserPoolId": .string(configuration.userPoolId),
            "CreationDate": .double(group.created.timeIntervalSince1970),
            "LastModifiedDate": .double(group.modified.timeIntervalSince1970),
        ]
        if let description = group.description { object["Description"] = .string(description) }
        if let precedence = group.precedence { object["Precedence"] = .int(precedence) }
        return object
    }
}
