import Amplify
import Testing

/// A non-model type named in a model's schema by its Swift type is registered by that: the
/// request builders select its fields by name, and a field they cannot expand makes a request
/// the API refuses ("Subselection required").
@Suite struct EmbeddableRegistrationTests {
    /// Registered by nothing but the field types below.
    private struct Spot: Embeddable {
        static let schema = defineSchema { model in
            model.fields(.field(CodingKeys.label, is: .required, ofType: .string))
        }

        enum CodingKeys: String, ModelKey { case label }

        let label: String
    }

    private struct Pin: Embeddable {
        static let schema = defineSchema { model in
            model.fields(.field(CodingKeys.label, is: .required, ofType: .string))
        }

        enum CodingKeys: String, ModelKey { case label }

        let label: String
    }

    @Test func aFieldTypeRegistersItsEmbeddableType() {
        #expect(ModelFieldType.embedded(type: Spot.self) == .embedded(name: "Spot"))
        #expect(ModelRegistry.embeddableSchema(from: "Spot")?.fields["label"] != nil)
    }

    @Test func aListFieldTypeRegistersItsElementType() {
        #expect(ModelFieldType.embeddedCollection(of: Pin.self) == .embeddedCollection(of: .embedded(name: "Pin")))
        #expect(ModelRegistry.embeddableSchema(from: "Pin")?.fields["label"] != nil)
    }
}
