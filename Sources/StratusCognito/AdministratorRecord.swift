import Foundation
import StratusServer

/// The credentials of the pool's administrator, kept with the pool's state (in the data
/// directory's `cognito.sqlite`, private to its owner, or in the PostgreSQL database that
/// servers share).
///
/// Without IAM credentials of the server's own, the administrator's calls must be signed with
/// these (SigV4, service `cognito-idp`): `stratus serve` prints them at start. An unsigned call,
/// or one signed with other credentials, is refused as AWS refuses it.
struct AdministratorRecord: CognitoRecord, Hashable {
    static let kind = "administrator"
    var key: String { "credentials" }

    var accessKeyId: String
    var secretAccessKey: String

    /// The credentials kept in `store`, or new ones, kept there first.
    ///
    /// - Throws: when the store cannot be read or written.
    static func load(from store: any CognitoStore) async throws -> IAMCredential {
        if let record = try await store.read(AdministratorRecord.self, "credentials") {
            return IAMCredential(accessKeyId: record.accessKeyId, secretAccessKey: record.secretAccessKey)
        }
        let record = AdministratorRecord(
            accessKeyId: "AKIA" + CognitoUserPool.randomText(16, alphabet: "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567"),
            secretAccessKey: CognitoUserPool.randomText(
                40,
                alphabet: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789/+"
            )
        )
        try await store.write(record)
        return IAMCredential(accessKeyId: record.accessKeyId, secretAccessKey: record.secretAccessKey)
    }
}
