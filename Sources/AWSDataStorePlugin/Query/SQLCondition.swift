import Amplify
import GRDB

/// A predicate translated to a SQL condition on one table, with its arguments.
///
/// Values are always bound, never written into the SQL text. The condition selects exactly the
/// records ``QueryPredicate/evaluate(target:schema:)`` selects: every part of it is true or
/// false, never `NULL`, so that `NOT` negates as the in-memory evaluator does.
///
/// ```swift
/// // Post.keys.rating > 4 || Post.keys.title.beginsWith("[Amplify]")
/// // ("rating" IS NOT NULL AND "rating" > ?) OR ("title" IS NOT NULL AND "title" >= ? AND instr("title", ?) = 1)
/// ```
struct SQLCondition: Sendable {
    /// The condition, for a `WHERE` clause.
    let sql: String
    /// The values of its placeholders, in order.
    let arguments: [DatabaseValue]
    /// The tokens of the operations left to the in-memory evaluator; release them once the
    /// statement has run.
    let tokens: [Int64]

    /// Translates `predicate` for `table`.
    ///
    /// - Throws: ``DataStoreError`` with ``DataStoreError/Code/invalidCondition`` when the
    ///   predicate does not fit the model: an unknown field, an operator the field's type does not
    ///   support, a value of another type. The message is the evaluator's, which names the model,
    ///   the field and the fix.
    init(_ predicate: any QueryPredicate, table: ModelTable, conditions: InMemoryConditions) throws(DataStoreError) {
        do {
            // The evaluator checks every member against the schema, whatever the record.
            _ = try predicate.evaluate(target: .object([:]), schema: table.schema)
        } catch let error as QueryPredicateError {
            throw DataStoreError(.invalidCondition, error.description)
        } catch {
            throw DataStoreError(.invalidCondition, "\(error)")
        }
        var translator = Translator(table: table, conditions: conditions)
        do {
            sql = try translator.translate(predicate)
        } catch {
            conditions.release(translator.tokens)
            throw error
        }
        arguments = translator.arguments
        tokens = translator.tokens
    }
}

/// What a predicate's field stands for in the table.
private enum FieldTarget {
    /// A stored field, compared by the kind of its column.
    case column(ModelColumn)
    /// A relation compared by its foreign key: one column, or several joined with `#`. Empty
    /// when the relation keeps no foreign key in this table.
    case foreignKey([ModelColumn])

    var columns: [ModelColumn] {
        switch self {
        case .column(let column): return [column]
        case .foreignKey(let columns): return columns
        }
    }

    /// The SQL expression of the field's value.
    var expression: String {
        switch columns.count {
        case 0: return "NULL"
        case 1: return columns[0].name.quotedIdentifier
        default: return "(" + columns.map(\.name.quotedIdentifier).joined(separator: " || '#' || ") + ")"
        }
    }
}

/// How SQL compares a value class natively.
private enum NativeClass {
    case text
    case number
    case boolean
}

private struct Translator {
    let table: ModelTable
    let conditions: InMemoryConditions
    var arguments: [DatabaseValue] = []
    var tokens: [Int64] = []

    mutating func translate(_ predicate: any QueryPredicate) throws(DataStoreError) -> String {
        switch predicate {
        case let constant as QueryPredicateConstant:
            switch constant {
            case .all: return "1"
            }
        case let group as QueryPredicateGroup:
            var members: [String] = []
            for member in group.predicates { members.append(try translate(member)) }
            switch group.type {
            case .and: return members.isEmpty ? "1" : "(" + members.joined(separator: " AND ") + ")"
            case .or: return members.isEmpty ? "0" : "(" + members.joined(separator: " OR ") + ")"
            case .not: return "NOT (" + (members.isEmpty ? "1" : members.joined(separator: " AND ")) + ")"
            }
        case let operation as QueryPredicateOperation:
            return translate(operation)
        default:
            throw DataStoreError(
                .invalidCondition,
                "DataStore cannot translate the predicate \(predicate) of type \(type(of: predicate)) to SQL. "
                    + "Build predicates from \(table.name).keys, field(_:), QueryPredicateGroup or "
                    + "QueryPredicateConstant."
            )
        }
    }

    private func target(of fieldName: String) -> FieldTarget {
        if let field = table.schema.field(named: fieldName), case .model = field.type {
            return .foreignKey((table.associations[fieldName] ?? []).compactMap(table.column(named:)))
        }
        guard let column = table.column(named: fieldName) else { return .foreignKey([]) }
        return table.schema.field(named: fieldName) == nil ? .foreignKey([column]) : .column(column)
    }

    private mutating func translate(_ operation: QueryPredicateOperation) -> String {
        let target = target(of: operation.field)
        let expression = target.expression
        switch operation.operator {
        case .attributeExists(true), .notEqual(.null): return "\(expression) IS NOT NULL"
        case .attributeExists(false), .equals(.null): return "\(expression) IS NULL"
        default: break
        }
        if operation.operator.operands.contains(where: \.isNaN) {
            return inMemory(operation, target)
        }
        switch target {
        case .foreignKey(let columns):
            let nativeClass: NativeClass
            switch columns.count == 1 ? columns[0].kind : .string {
            case .integer, .double: nativeClass = .number
            case .boolean: nativeClass = .boolean
            default: nativeClass = .text
            }
            guard operation.operator.operands.allSatisfy({ $0.fits(nativeClass) }) else {
                return mismatch(operation.operator)
            }
            return native(operation.operator, expression, nativeClass)
        case .column(let column):
            switch column.kind {
            case .string: return native(operation.operator, expression, .text)
            case .integer, .double: return native(operation.operator, expression, .number)
            case .boolean: return native(operation.operator, expression, .boolean)
            case .temporal:
                switch operation.operator {
                case .beginsWith, .contains, .notContains: return native(operation.operator, expression, .text)
                default: return inMemory(operation, target)
                }
            case .object:
                return inMemory(operation, target)
            case .list(let element):
                let nativeClass: NativeClass
                switch element {
                case .string: nativeClass = .text
                case .integer, .double: nativeClass = .number
                case .boolean: nativeClass = .boolean
                default: return inMemory(operation, target)
                }
                switch operation.operator {
                case .contains(.string(let needle)) where nativeClass == .text:
                    return textElement(needle, operation, target)
                case .notContains(.string(let needle)) where nativeClass == .text:
                    return "NOT " + textElement(needle, operation, target)
                case .contains(let needle):
                    return "EXISTS (SELECT 1 FROM json_each(\(expression)) WHERE value = \(bind(needle, nativeClass)))"
                case .notContains(let needle):
                    return
                        "NOT EXISTS (SELECT 1 FROM json_each(\(expression)) WHERE value = \(bind(needle, nativeClass)))"
                default:
                    return inMemory(operation, target)
                }
            }
        }
    }

    /// Whether a list of strings holds `needle`.
    ///
    /// SQLite's JSON functions end a string at an escaped NUL (`\u0000`), so `json_each` only
    /// narrows the candidates, comparing with the needle's text before its first NUL, and the
    /// in-memory evaluator, which reads the whole JSON text, decides.
    private mutating func textElement(
        _ needle: String,
        _ operation: QueryPredicateOperation,
        _ target: FieldTarget
    ) -> String {
        let candidate = bind(.string(String(needle.prefix { $0 != "\u{0}" })), .text)
        let contains = QueryPredicateOperation(field: operation.field, operator: .contains(.string(needle)))
        return "(EXISTS (SELECT 1 FROM json_each(\(target.expression)) WHERE value = \(candidate)) AND "
            + "\(inMemory(contains, target)))"
    }

    /// The operator on a value that SQL compares natively, as the evaluator does.
    private mutating func native(
        _ queryOperator: QueryOperator,
        _ expression: String,
        _ nativeClass: NativeClass
    )
        -> String
    {
        switch queryOperator {
        case .equals(let value):
            return "\(expression) IS \(bind(value, nativeClass))"
        case .notEqual(let value):
            return "\(expression) IS NOT \(bind(value, nativeClass))"
        case .lessThan(let value):
            return ordered(expression, "<", value, nativeClass)
        case .lessOrEqual(let value):
            return ordered(expression, "<=", value, nativeClass)
        case .greaterThan(let value):
            return ordered(expression, ">", value, nativeClass)
        case .greaterOrEqual(let value):
            return ordered(expression, ">=", value, nativeClass)
        case .between(let start, let end):
            guard !start.isNull, !end.isNull else { return "0" }
            let startPlaceholder = bind(start, nativeClass)
            let endPlaceholder = bind(end, nativeClass)
            return "(\(expression) IS NOT NULL AND \(expression) BETWEEN \(startPlaceholder) AND \(endPlaceholder))"
        case .beginsWith(let prefix):
            guard nativeClass == .text else { return "0" }
            let lower = bind(.string(prefix), .text)
            let needle = bind(.string(prefix), .text)
            return "(\(expression) IS NOT NULL AND \(expression) >= \(lower) AND instr(\(expression), \(needle)) = 1)"
        case .contains(let needle):
            // The evaluator finds no empty substring.
            guard nativeClass == .text, case .string(let text) = needle, !text.isEmpty else { return "0" }
            return "(\(expression) IS NOT NULL AND instr(\(expression), \(bind(needle, .text))) > 0)"
        case .notContains(let needle):
            guard nativeClass == .text, case .string(let text) = needle, !text.isEmpty else { return "1" }
            return "(\(expression) IS NULL OR instr(\(expression), \(bind(needle, .text))) = 0)"
        case .attributeExists(let exists):
            return exists ? "\(expression) IS NOT NULL" : "\(expression) IS NULL"
        }
    }

    private mutating func ordered(
        _ expression: String,
        _ sqlOperator: String,
        _ value: JSONValue,
        _ nativeClass: NativeClass
    ) -> String {
        guard !value.isNull, nativeClass != .boolean else { return "0" }
        return "(\(expression) IS NOT NULL AND \(expression) \(sqlOperator) \(bind(value, nativeClass)))"
    }

    /// The constant the evaluator gives when the operand's type differs from the stored
    /// values': nothing equals, orders, begins with or contains it.
    private func mismatch(_ queryOperator: QueryOperator) -> String {
        switch queryOperator {
        case .notEqual, .notContains: return "1"
        default: return "0"
        }
    }

    /// Leaves `operation` to the in-memory evaluator, through `stratus_matches`.
    private mutating func inMemory(_ operation: QueryPredicateOperation, _ target: FieldTarget) -> String {
        let token = conditions.register(
            InMemoryConditions.Entry(operation: operation, schema: table.schema, columns: target.columns, table: table)
        )
        tokens.append(token)
        arguments.append(token.databaseValue)
        let columns = (target.columns.map(\.name) + table.primaryKey).map { ", " + $0.quotedIdentifier }.joined()
        return "\(InMemoryConditions.functionName)(?\(columns)) = 1"
    }

    /// Binds `value` and returns its placeholder.
    private mutating func bind(_ value: JSONValue, _ nativeClass: NativeClass) -> String {
        switch value {
        case .string(let string): arguments.append(string.databaseValue)
        case .integer(let int): arguments.append(Int64(int).databaseValue)
        case .number(let double): arguments.append(double.databaseValue)
        case .boolean(let bool): arguments.append(Int64(bool ? 1 : 0).databaseValue)
        default: arguments.append(.null)
        }
        return "?"
    }
}

extension JSONValue {
    fileprivate var isNaN: Bool {
        if case .number(let double) = self { return double.isNaN }
        return false
    }

    fileprivate func fits(_ nativeClass: NativeClass) -> Bool {
        switch (self, nativeClass) {
        case (.string, .text), (.integer, .number), (.number, .number), (.boolean, .boolean), (.null, _): return true
        default: return false
        }
    }
}
