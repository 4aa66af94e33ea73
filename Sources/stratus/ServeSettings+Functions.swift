import Foundation
import StratusServer

extension ServeSettings {
    /// The `functions` of the file: each a `command` run per invocation or a `runtime` whose
    /// processes poll the Lambda Runtime API, run in the file's directory (or in its
    /// `directory`, relative to the file).
    ///
    /// ```json
    /// "functions": {
    ///   "echo-dev": { "command": ["python3", "echo.py"], "timeoutSeconds": 10 },
    ///   "weather-dev": { "runtime": ["python3", "-m", "awslambdaric", "app.handler"], "concurrency": 2,
    ///                    "directory": "functions/weather", "environment": { "UNITS": "metric" } }
    /// }
    /// ```
    ///
    /// Functions run in the file's `region` (`AWS_REGION`, `AWS_DEFAULT_REGION` and Amplify's
    /// `REGION`), unless their own `environment` says otherwise.
    static func functions(
        _ object: SettingsObject?,
        directory: URL,
        region: String
    ) throws -> [String: LocalFunction] {
        guard let object else { return [:] }
        var functions: [String: LocalFunction] = [:]
        let known = ["command", "runtime", "concurrency", "timeoutSeconds", "environment", "directory"]
        for key in object.allKeys {
            let name = key.stringValue
            let scope = "functions.\(name)"
            let function = try object.superDecoder(forKey: key).container(keyedBy: SettingsField.self)
            if let unknown = function.allKeys.map(\.stringValue).sorted().first(where: { !known.contains($0) }) {
                throw CommandFailure(
                    "\(scope) has the unknown key '\(unknown)' in the configuration file. Use "
                        + known.joined(separator: ", ") + "."
                )
            }
            let command: [String]? = try function.value("command")
            let runtime: [String]? = try function.value("runtime")
            let concurrency: Int? = try function.value("concurrency")
            let handler: LocalFunction.Handler
            switch (command, runtime) {
            case (let arguments?, nil):
                guard concurrency == nil else {
                    throw CommandFailure(
                        "\(scope) sets concurrency for a command, which runs once per invocation. "
                            + #"Remove concurrency, or use "runtime" for processes that serve many invocations."#
                    )
                }
                handler = .command(try nonEmpty(arguments, "\(scope).command"))
            case (nil, let arguments?):
                let count = concurrency ?? 1
                guard count >= 1 else {
                    throw CommandFailure("\(scope).concurrency is \(count). Give 1 or more processes.")
                }
                handler = .runtime(try nonEmpty(arguments, "\(scope).runtime"), concurrency: count)
            case (nil, nil):
                throw CommandFailure(
                    "\(scope) in the configuration file needs "
                        + #""command": ["python3", "handler.py"] (run for each invocation, the event on its "#
                        + #"standard input) or "runtime": ["python3", "-m", "awslambdaric", "app.handler"] "#
                        + "(processes that poll the Lambda Runtime API)."
                )
            case (_?, _?):
                throw CommandFailure("\(scope) sets both command and runtime in the configuration file. Keep one.")
            }
            let seconds: Double = try function.value("timeoutSeconds") ?? 25
            guard seconds > 0, seconds.isFinite else {
                throw CommandFailure("\(scope).timeoutSeconds is \(seconds). Give a number of seconds above 0.")
            }
            var workingDirectory = directory
            if let path: String = try function.value("directory") {
                workingDirectory = path.hasPrefix("/") ? URL(filePath: path) : directory.appending(path: path)
                var isDirectory: ObjCBool = false
                guard FileManager.default.fileExists(atPath: workingDirectory.path, isDirectory: &isDirectory),
                    isDirectory.boolValue
                else {
                    throw CommandFailure(
                        "\(scope).directory '\(workingDirectory.path)' is not a directory. "
                            + "Give the function's directory, relative to the configuration file."
                    )
                }
            }
            var environment = ["AWS_REGION": region, "AWS_DEFAULT_REGION": region, "REGION": region]
            for (key, value) in try function.value("environment", as: [String: String].self) ?? [:] {
                environment[key] = value
            }
            functions[name] = LocalFunction(
                handler: handler,
                workingDirectory: workingDirectory,
                timeout: .milliseconds(Int((seconds * 1000).rounded())),
                environment: environment
            )
        }
        return functions
    }

    /// The `resolvers` of the file: `{"function": "name"}` (with `"batchSize": 10` to batch),
    /// `{"dataSource": "NONE"}` or `{"http": "http://127.0.0.1:8080/page"}` by `Type.field`.
    static func resolvers(
        _ object: SettingsObject?,
        functions: [String: LocalFunction]
    ) throws -> [String: ConfiguredResolver] {
        guard let object else { return [:] }
        var resolvers: [String: ConfiguredResolver] = [:]
        for key in object.allKeys {
            let field = key.stringValue
            let scope = "resolvers.\(field)"
            guard field.split(separator: ".", omittingEmptySubsequences: false).count == 2 else {
                throw CommandFailure(
                    "'\(field)' in resolvers is not a field name. Name fields as Type.field, like \"Query.weather\"."
                )
            }
            let resolver = try object.superDecoder(forKey: key).container(keyedBy: SettingsField.self)
            let function: String? = try resolver.value("function")
            let dataSource: String? = try resolver.value("dataSource")
            let batchSize: Int? = try resolver.value("batchSize")
            if let http: String = try resolver.value("http") {
                guard function == nil, dataSource == nil, batchSize == nil else {
                    throw CommandFailure(
                        "\(scope) sets http with function, dataSource or batchSize in the configuration file. Keep http "
                            + "alone: the field's data source is the HTTP endpoint."
                    )
                }
                resolvers[field] = .http(try httpURL(http, "\(scope).http"))
                continue
            }
            if let batchSize {
                guard function != nil else {
                    throw CommandFailure(
                        "\(scope).batchSize batches the invocations of a function, and \(scope) names none. "
                            + #"Give it {"function": "name-dev", "batchSize": \#(batchSize)}."#
                    )
                }
                guard (1...2000).contains(batchSize) else {
                    throw CommandFailure(
                        "\(scope).batchSize is \(batchSize); AppSync batches 1 to 2000 invocations. Give a number in "
                            + "that range."
                    )
                }
            }
            switch (function, dataSource) {
            case (let name?, nil):
                guard functions[name] != nil else {
                    let configured = functions.keys.sorted()
                    throw CommandFailure(
                        "\(scope) names the function '\(name)', which functions does not configure"
                            + (configured.isEmpty
                                ? "" : " (it has \(configured.map { "'\($0)'" }.joined(separator: ", ")))")
                            + #". Add "functions": {""# + name + #"": {"command": ["python3", "handler.py"]}}."#
                    )
                }
                resolvers[field] = batchSize.map { .batchFunction(name, batchSize: $0) } ?? .function(name)
            case (nil, "NONE"?):
                resolvers[field] = ConfiguredResolver.none
            case (nil, let other?):
                throw CommandFailure(
                    "\(scope) has the data source '\(other)'. Use \"NONE\" (the field answers its arguments), "
                        + #"or {"function": "name"} for a Lambda function."#
                )
            case (nil, nil):
                throw CommandFailure(
                    #"\#(scope) needs {"function": "name-dev"}, {"dataSource": "NONE"} or {"http": "http://127.0.0.1:8080"} "#
                        + "in the configuration file."
                )
            case (_?, _?):
                throw CommandFailure("\(scope) sets both function and dataSource in the configuration file. Keep one.")
            }
        }
        return resolvers
    }

    /// The file's `httpOrigins`: each origin an `@http` URL starts with, mapped to a local
    /// server's origin (with a path to put before the field's, if it needs one).
    ///
    /// ```json
    /// "httpOrigins": { "https://api.example.com": "http://127.0.0.1:8080" }
    /// ```
    static func httpOrigins(_ origins: [String: String]?) throws -> [String: URL] {
        var result: [String: URL] = [:]
        for (origin, target) in origins ?? [:] {
            let scheme = origin.hasPrefix("https://") ? "https://" : origin.hasPrefix("http://") ? "http://" : nil
            guard let scheme, origin.count > scheme.count, !origin.dropFirst(scheme.count).contains("/") else {
                throw CommandFailure(
                    "'\(origin)' in httpOrigins is not an origin. Give the start of the @http URL up to its path, such as "
                        + "\"https://api.example.com\"."
                )
            }
            result[origin] = try httpURL(target, "httpOrigins['\(origin)']")
        }
        return result
    }

    /// `text` as an `http` or `https` URL with a host and no query.
    private static func httpURL(_ text: String, _ key: String) throws -> URL {
        guard let components = URLComponents(string: text), ["http", "https"].contains(components.scheme ?? ""),
            components.host?.isEmpty == false, components.query == nil, components.fragment == nil,
            let url = components.url
        else {
            throw CommandFailure(
                "\(key) is '\(text)' in the configuration file, which is not an http:// or https:// URL with a host "
                    + "and no query. Give one such as \"http://127.0.0.1:8080\"."
            )
        }
        return url
    }

    private static func nonEmpty(_ arguments: [String], _ key: String) throws -> [String] {
        guard let program = arguments.first, !program.isEmpty else {
            throw CommandFailure(
                "\(key) is empty in the configuration file. Give the program and its arguments, like "
                    + #"["python3", "handler.py"]."#
            )
        }
        return arguments
    }
}
