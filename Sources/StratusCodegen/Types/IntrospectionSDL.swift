import Foundation

/// Writes the SDL of an introspection result, so that it builds a schema like any SDL.
enum IntrospectionSDL {
    /// A type reference: a named type, or a list or non-null wrapper.
    final class TypeReference: Decodable {
        let kind: String
        let name: String?
        let ofType: TypeReference?

        var sdl: String {
            switch kind {
            case "NON_NULL": return (ofType?.sdl ?? "") + "!"
            case "LIST": return "[" + (ofType?.sdl ?? "") + "]"
            default: return name ?? ""
            }
        }
    }

    struct InputValue: Decodable {
        let name: String
        let type: TypeReference
        let defaultValue: String?

        var sdl: String {
            "\(name): \(type.sdl)" + (defaultValue.map { " = \($0)" } ?? "")
        }
    }

    struct IntrospectedField: Decodable {
        let name: String
        let args: [InputValue]?
        let type: TypeReference
    }

    struct EnumValue: Decodable {
        let name: String
    }

    struct FullType: Decodable {
        let kind: String
        let name: String
        let fields: [IntrospectedField]?
        let inputFields: [InputValue]?
        let interfaces: [TypeReference]?
        let enumValues: [EnumValue]?
        let possibleTypes: [TypeReference]?
    }

    struct RootType: Decodable {
        let name: String
    }

    struct Schema: Decodable {
        let queryType: RootType?
        let mutationType: RootType?
        let subscriptionType: RootType?
        let types: [FullType]
    }

    private struct Wrapper: Decodable {
        struct Data: Decodable {
            let __schema: Schema
        }

        let data: Data?
        let __schema: Schema?
    }

    static let builtInScalars: Set<String> = ["String", "Int", "Float", "Boolean", "ID"]

    static func sdl(fromJSON json: Data, fileName: String) throws(TypesError) -> String {
        let schema: Schema
        do {
            let wrapper = try JSONDecoder().decode(Wrapper.self, from: json)
            guard let found = wrapper.data?.__schema ?? wrapper.__schema else {
                throw TypesError(
                    file: fileName,
                    "The JSON holds no '__schema'. Pass the introspection result (schema.json) or the SDL."
                )
            }
            schema = found
        } catch let error as TypesError {
            throw error
        } catch {
            throw TypesError(
                file: fileName,
                "The JSON is not an introspection result (\(error)). Pass schema.json as the AppSync console exports it, or the SDL."
            )
        }
        return write(schema)
    }

    private static func write(_ schema: Schema) -> String {
        var blocks: [String] = []
        let roots = [
            ("query", schema.queryType), ("mutation", schema.mutationType), ("subscription", schema.subscriptionType),
        ].compactMap { operation, type in type.map { "  \(operation): \($0.name)" } }
        blocks.append((["schema {"] + roots + ["}"]).joined(separator: "\n"))
        for type in schema.types where !type.name.hasPrefix("__") {
            switch type.kind {
            case "SCALAR":
                if !builtInScalars.contains(type.name) { blocks.append("scalar \(type.name)") }
            case "OBJECT", "INTERFACE":
                let keyword = type.kind == "OBJECT" ? "type" : "interface"
                let interfaces = (type.interfaces ?? []).compactMap(\.name)
                let implements = interfaces.isEmpty ? "" : " implements " + interfaces.joined(separator: " & ")
                let fields = (type.fields ?? []).map { field -> String in
                    let arguments = (field.args ?? []).map(\.sdl).joined(separator: ", ")
                    return "  \(field.name)\(arguments.isEmpty ? "" : "(\(arguments))"): \(field.type.sdl)"
                }
                blocks.append((["\(keyword) \(type.name)\(implements) {"] + fields + ["}"]).joined(separator: "\n"))
            case "UNION":
                let members = (type.possibleTypes ?? []).compactMap(\.name).joined(separator: " | ")
                blocks.append("union \(type.name) = \(members)")
            case "ENUM":
                let values = (type.enumValues ?? []).map { "  \($0.name)" }
                blocks.append((["enum \(type.name) {"] + values + ["}"]).joined(separator: "\n"))
            case "INPUT_OBJECT":
                let fields = (type.inputFields ?? []).map { "  \($0.sdl)" }
                blocks.append((["input \(type.name) {"] + fields + ["}"]).joined(separator: "\n"))
            default:
                continue
            }
        }
        return blocks.joined(separator: "\n\n") + "\n"
    }
}
