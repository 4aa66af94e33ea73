import Foundation
import StratusCodegen

/// Reads and parses the schema at `path`, turning failures into messages that say what to do.
///
/// - Throws: ``CommandFailure`` saying the file cannot be read, or listing the schema's problems
///   with their positions.
func loadSchema(at path: String) throws -> AnnotatedSchema {
    let url = URL(fileURLWithPath: path)
    let source: String
    do {
        source = try String(contentsOf: url, encoding: .utf8)
    } catch {
        throw CommandFailure("Cannot read the schema at '\(path)'. Pass --schema with the path of a .graphql file.")
    }
    return try parseSchema(source, fileName: url.lastPathComponent)
}

/// Parses an annotated schema already read from `fileName`.
///
/// - Throws: ``CommandFailure`` listing the schema's problems with their positions.
func parseSchema(_ source: String, fileName: String) throws -> AnnotatedSchema {
    do {
        return try SchemaParser().parse(source, fileName: fileName)
    } catch {
        throw CommandFailure(error.description)
    }
}

/// A failure whose message is already written for the user: the command prints it after
/// `Error: ` and exits with status 1. Problems with the files a command reads are such failures,
/// not usage errors, so no usage line follows them.
struct CommandFailure: Error, CustomStringConvertible {
    let message: String
    var description: String { message }

    init(_ message: String) {
        self.message = message
    }
}
