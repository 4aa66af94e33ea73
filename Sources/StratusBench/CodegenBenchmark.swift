import GraphQL
import StratusCodegen

/// Code generation for a large schema, against GraphQLSwift's parse of the same text.
struct CodegenBenchmark {
    let models: Int
    var iterations = 15

    /// A schema of `models` models in chains of relations, with enums, non-model types,
    /// indexes, composite keys and auth rules.
    func schemaText() -> String {
        var text = "enum Level { LOW MEDIUM HIGH }\ntype Point { x: Float! y: Float! }\n"
        for index in 0..<models {
            let name = "Entity\(index)"
            text += "type \(name) @model @auth(rules: [{ allow: owner }, { allow: public, operations: [read] }]) {\n"
            text += "  id: ID!\n  title: String!\n  count: Int\n  ratio: Float\n  done: Boolean\n"
            text += "  day: AWSDate\n  at: AWSDateTime\n  level: Level\n  where: Point\n  tags: [String!]\n"
            if index > 0 {
                text += "  parentID: ID! @index(name: \"byParent\", sortKeyFields: [\"title\"])\n"
                text += "  parent: Entity\(index - 1) @belongsTo(fields: [\"parentID\"])\n"
            }
            if index < models - 1 {
                text += "  children: [Entity\(index + 1)] @hasMany(indexName: \"byParent\", fields: [\"id\"])\n"
            }
            text += "}\n"
        }
        return text
    }

    func run() {
        let text = schemaText()
        let clock = ContinuousClock()
        var parseOnly: [Duration] = []
        var models: [Duration] = []
        var statements: [Duration] = []
        var fileCount = 0
        for _ in 0..<iterations {
            parseOnly.append(clock.measure { _ = try? GraphQL.parse(source: text) })
            var schema: AnnotatedSchema?
            models.append(
                clock.measure {
                    schema = try? SchemaParser().parse(text)
                    fileCount = try! SwiftModelGenerator().generate(schema!).count
                }
            )
            statements.append(clock.measure { _ = StatementsGenerator().generate(schema!) })
        }
        let baseline = median(parseOnly)
        let modelsTime = median(models)
        let statementsTime = median(statements)
        print("codegen: \(self.models)-model schema, \(text.utf8.count) bytes, median of \(iterations) runs")
        print("  baseline: GraphQLSwift parse only      \(format(baseline))")
        print(
            "  codegen models (parse+resolve+emit)    \(format(modelsTime))  \(fileCount) files  ratio \(ratio(modelsTime, baseline))x"
        )
        print(
            "  codegen statements (emit only)         \(format(statementsTime))  ratio \(ratio(statementsTime, baseline))x"
        )
    }

    private func median(_ values: [Duration]) -> Duration {
        values.sorted()[values.count / 2]
    }

    private func milliseconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) * 1000 + Double(duration.components.attoseconds) / 1e15
    }

    private func format(_ duration: Duration) -> String {
        let value = milliseconds(duration)
        return String(Int(value * 10) / 10) + "." + String(Int(value * 10) % 10) + " ms"
    }

    private func ratio(_ value: Duration, _ baseline: Duration) -> String {
        let result = milliseconds(value) / max(milliseconds(baseline), 0.001)
        return String(Int(result * 10) / 10) + "." + String(Int(result * 10) % 10)
    }
}
