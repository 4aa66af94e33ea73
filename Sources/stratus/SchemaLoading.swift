import ArgumentParser
import Foundation
import StratusCodegen

/// Reads and parses the schema at `path`, turning failures into messages that say what to do.
///
/// - Throws: `ValidationError` when the file cannot be read, ``CommandFailure`` listing the
///   schema's problems with their positions.
func loadSchema(at path: String) throws -> AnnotatedSchema {
    let url = URL(fileURLWithPath: path)
    let source: String
    do {
        source = try String(contentsOf: url, encoding: .utf8)
    } catch {
        throw ValidationError("Cannot read the schema at '\(path)'. Pass --schema with the path of a .graphql file.")
    }
    do {
        return try SchemaParser().parse(source, fileName: url.lastPathComponent)
    } catch {
        throw CommandFailure(message: error.description)
    }
}

/// A failure whose message is already written for the user.
struct CommandFailure: Error, CustomStringConvertible {
    let message: String
    var description: String { message }
}
