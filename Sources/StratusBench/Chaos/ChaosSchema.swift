/// The schema of `StratusBench chaos`: a parent with children, both edited by every device.
///
/// `ops` names the device write that made the record's values: each write sets it to its own
/// operation id. Automerge appends lists, so a write merged into a newer version still leaves
/// its id, last, in the journal entry it made. The Swift models in `Models/` are generated from
/// this text with `stratus codegen models`.
enum ChaosSchema {
    static let text = """
        type Folder @model {
          id: ID!
          name: String!
          ops: [String!]!
          notes: [Note] @hasMany(indexName: "byFolder", fields: ["id"])
        }

        type Note @model {
          id: ID!
          title: String!
          ops: [String!]!
          folderID: ID! @index(name: "byFolder")
          folder: Folder @belongsTo(fields: ["folderID"])
        }
        """
}
