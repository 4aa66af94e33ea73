import Amplify
import Foundation

/// A model of the seeds' owner rule, `type OwnedNote @model @auth(rules: [{ allow: owner }])`,
/// as `stratus codegen models` writes it.
struct OwnedNote: Model, Equatable {
    let id: String
    var title: String
    var owner: String?
    var createdAt: Temporal.DateTime?
    var updatedAt: Temporal.DateTime?

    init(id: String = UUID().uuidString, title: String, owner: String? = nil) {
        self.id = id
        self.title = title
        self.owner = owner
    }

    /// The backend's schema of the model.
    static let graphQLSchema = """
        type OwnedNote @model @auth(rules: [{ allow: owner }]) {
          id: ID!
          title: String!
        }
        """
}

extension OwnedNote {
    enum CodingKeys: String, ModelKey {
        case id
        case title
        case owner
        case createdAt
        case updatedAt
    }

    static let keys = CodingKeys.self

    static let schema = defineSchema { model in
        let note = OwnedNote.keys
        model.authRules = [
            rule(
                allow: .owner,
                ownerField: "owner",
                identityClaim: "sub::username",
                provider: .userPools,
                operations: [.create, .update, .delete, .read]
            )
        ]
        model.listPluralName = "OwnedNotes"
        model.syncPluralName = "OwnedNotes"
        model.attributes(.primaryKey(fields: [note.id]))
        model.fields(
            .field(note.id, is: .required, ofType: .string),
            .field(note.title, is: .required, ofType: .string),
            .field(note.owner, is: .optional, ofType: .string),
            .field(note.createdAt, is: .required, isReadOnly: true, ofType: .dateTime),
            .field(note.updatedAt, is: .required, isReadOnly: true, ofType: .dateTime)
        )
    }
}

/// The registration of ``OwnedNote`` alone.
struct OwnedNotes: AmplifyModelRegistration {
    let version = "owned-note-1"

    func registerModels(registry: ModelRegistry.Type) {
        registry.register(modelType: OwnedNote.self)
    }
}
