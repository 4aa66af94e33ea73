import AWSAppSync
import Foundation
import Testing

/// Reading responses into selection sets and writing them back, over operations in the shape
/// the generator writes.
@Suite struct SelectionSetReadingTests {
    static let item: JSONValue = [
        "__typename": "Note", "id": "n1", "heading": "Milk", "rating": 4, "tags": ["a", nil], "status": "ACTIVE",
        "extra": "not selected",
    ]

    static func response(items: JSONValue = [item]) -> [String: JSONValue] {
        ["listNotes": ["__typename": "ModelNoteConnection", "items": items, "nextToken": nil]]
    }

    @Test func readsSelectedFieldsThroughAliasesConditionsAndFragments() throws {
        let data = try ListNotesQuery.Data(jsonObject: Self.response(), variables: ["withTags": true])
        let item = try #require(data.listNotes?.items.first ?? nil)
        #expect(item.id == "n1")
        #expect(item.heading == "Milk")
        #expect(item.rating == 4.0)
        #expect(item.tags == ["a", nil])
        #expect(item.fragments.noteFields.status == .active)
        #expect(item.snapshot["extra"] == nil)
        #expect(item.snapshot["__typename"] == "Note")
        #expect(data.listNotes?.nextToken == nil)
    }

    @Test func skipsAFalseConditionAndItsMissingField() throws {
        var item = Self.item.objectValue!
        item["tags"] = nil
        let data = try ListNotesQuery.Data(
            jsonObject: Self.response(items: [.object(item)]),
            variables: ["withTags": false]
        )
        #expect(data.listNotes?.items.first??.snapshot["tags"] == nil)
    }

    @Test func unknownEnumValuesAreKept() throws {
        var item = Self.item.objectValue!
        item["status"] = "LATER"
        let data = try ListNotesQuery.Data(
            jsonObject: Self.response(items: [.object(item)]),
            variables: ["withTags": true]
        )
        #expect(data.listNotes?.items.first??.fragments.noteFields.status == .unknown("LATER"))
        #expect(Status.unknown("LATER").jsonValue == "LATER")
    }

    @Test func aMissingFieldNamesItsPath() throws {
        var item = Self.item.objectValue!
        item["heading"] = nil
        let error = #expect(throws: JSONDecodingError.self) {
            try ListNotesQuery.Data(jsonObject: Self.response(items: [.object(item)]), variables: ["withTags": true])
        }
        #expect(
            error?.description
                == "The response has no value at 'listNotes.items.0.heading', which the selection set selects. "
                + "Regenerate API.swift if the schema changed."
        )
        #expect(error?.path == ["listNotes", "items", "0", "heading"])
    }

    @Test func aNullNonNullFieldNamesItsPathAndType() throws {
        var item = Self.item.objectValue!
        item["id"] = nil
        item["id"] = .null
        let error = #expect(throws: JSONDecodingError.self) {
            try ListNotesQuery.Data(jsonObject: Self.response(items: [.object(item)]), variables: ["withTags": true])
        }
        #expect(
            error?.description
                == "The response has null at 'listNotes.items.0.id', which is a non-null String. "
                + "Regenerate API.swift if the schema changed."
        )
    }

    @Test func aValueOfTheWrongTypeNamesItsPathAndType() throws {
        var item = Self.item.objectValue!
        item["rating"] = "four"
        let error = #expect(throws: JSONDecodingError.self) {
            try ListNotesQuery.Data(jsonObject: Self.response(items: [.object(item)]), variables: ["withTags": true])
        }
        #expect(
            error?.description
                == "The response has the string \"four\" at 'listNotes.items.0.rating', which is a Double. "
                + "Regenerate API.swift if the schema changed."
        )
        let notAList = #expect(throws: JSONDecodingError.self) {
            try ListNotesQuery.Data(jsonObject: Self.response(items: ["x": 1]), variables: ["withTags": true])
        }
        #expect(
            notAList?.description
                == "The response has an object at 'listNotes.items', which is a list of an object. "
                + "Regenerate API.swift if the schema changed."
        )
    }

    @Test func writesBackTheSelectedFields() throws {
        let data = try ListNotesQuery.Data(jsonObject: Self.response(), variables: ["withTags": true])
        let written = try data.jsonObject(variables: ["withTags": true])
        var expectedItem = Self.item.objectValue!
        expectedItem["extra"] = nil
        #expect(
            written == [
                "listNotes": ["__typename": "ModelNoteConnection", "items": [.object(expectedItem)], "nextToken": nil]
            ]
        )
    }

    @Test func memberwiseInitializersAndSettersRoundTrip() throws {
        var data = ListNotesQuery.Data(listNotes: .init(items: []))
        data.listNotes?.items.append(.init(id: "n2", heading: "Eggs", status: .archived))
        data.listNotes?.items[0]?.heading = "Bread"
        let written = try data.jsonObject(variables: ["withTags": true])
        let read = try ListNotesQuery.Data(jsonObject: written, variables: ["withTags": true])
        #expect(read == data)
        #expect(read.listNotes?.items.first??.heading == "Bread")
        #expect(read.listNotes?.items.first??.snapshot["__typename"] == "Note")
        #expect(read.listNotes?.items.first??.fragments.noteFields.status == .archived)
    }

    @Test func writingAHandBuiltSnapshotWithAMissingFieldFails() throws {
        let data = ListNotesQuery.Data(snapshot: ["listNotes": ["__typename": "ModelNoteConnection", "items": []]])
        let error = #expect(throws: JSONDecodingError.self) { try data.jsonObject(variables: ["withTags": true]) }
        #expect(error?.path == ["listNotes", "nextToken"])
    }

    @Test func inputObjectsOmitNilAndVariablesNest() throws {
        var input = NoteInput(title: "Milk", tags: ["a"])
        #expect(input.graphQLMap == ["title": "Milk", "tags": ["a"]])
        #expect(input.id == nil)
        input.id = "n1"
        input.title = "Eggs"
        #expect(input.jsonValue == ["id": "n1", "title": "Eggs", "tags": ["a"]])
        input.id = nil
        #expect(!input.graphQLMap.keys.contains("id"))
        #expect(ListNotesQuery(withTags: false).variables == ["withTags": false])
        #expect(ListNotesQuery(limit: 5, withTags: true).variables == ["limit": 5, "withTags": true])
    }

    @Test func fieldCacheKeysSortArgumentsAndResolveVariables() {
        let field = GraphQLField(
            "listPosts",
            arguments: [
                "limit": GraphQLVariable("limit"),
                "filter": GraphQLInputObject(["title": GraphQLInputObject(["eq": GraphQLVariable("title")])]),
                "nextToken": GraphQLVariable("nextToken"),
            ],
            type: .scalar(String.self)
        )
        #expect(field.cacheKey(with: ["limit": 10, "title": "A"]) == "listPosts(filter:[title:[eq:A]],limit:10)")
        #expect(
            GraphQLField("getPost", arguments: ["id": JSONValue.integer(1)], type: .scalar(String.self)).cacheKey(
                with: nil
            ) == "getPost(id:1)"
        )
        #expect(GraphQLField("me", type: .scalar(String.self)).cacheKey(with: nil) == "me")
    }
}

/// A field selected twice, directly and through a fragment, with different sub-selections.
private struct OwnerFields: GraphQLFragment {
    static let fragmentDefinition = "fragment OwnerFields on Note {\n  owner {\n    __typename\n    email\n  }\n}"
    static let possibleTypes = ["Note"]
    static let selections: [any GraphQLSelection] = [
        GraphQLField("owner", type: .object([GraphQLField("email", type: .nonNull(.scalar(String.self)))]))
    ]
    var snapshot: Snapshot
}

private struct NoteWithOwner: GraphQLSelectionSet {
    static let possibleTypes = ["Note"]
    static let selections: [any GraphQLSelection] = [
        GraphQLField("owner", type: .object([GraphQLField("name", type: .nonNull(.scalar(String.self)))])),
        GraphQLFragmentSpread(OwnerFields.self),
    ]
    var snapshot: Snapshot
}

@Suite struct SelectionMergingTests {
    @Test func aFieldSelectedTwiceKeepsBothSubSelections() throws {
        let note = try NoteWithOwner(
            jsonObject: ["__typename": "Note", "owner": ["name": "Ana", "email": "ana@example.com", "age": 40]]
        )
        #expect(note.snapshot == ["owner": ["name": "Ana", "email": "ana@example.com"]])
        let other = try NoteWithOwner(jsonObject: ["__typename": "Post", "owner": ["name": "Ana"]])
        #expect(other.snapshot == ["owner": ["name": "Ana"]])
    }
}
