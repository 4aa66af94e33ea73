// swift-tools-version: 6.2
import PackageDescription

let strict: [SwiftSetting] = [.treatAllWarnings(as: .error)]

/// OpenCombine, linked only where Combine is missing: on Apple platforms the publishers are Combine's.
let openCombine: Target.Dependency = .product(
    name: "OpenCombine",
    package: "OpenCombine",
    condition: .when(platforms: [.linux, .windows, .android, .wasi, .openbsd])
)

let package = Package(
    name: "Stratus",
    platforms: [.macOS(.v15), .iOS(.v18)],
    products: [
        .library(name: "AWSWire", targets: ["AWSWire"]),
        .library(name: "Amplify", targets: ["Amplify"]),
        .library(name: "AWSPluginsCore", targets: ["AWSPluginsCore"]),
        .library(name: "AWSAPIPlugin", targets: ["AWSAPIPlugin"]),
        .library(name: "AWSDataStorePlugin", targets: ["AWSDataStorePlugin"]),
        .library(name: "AWSAppSync", targets: ["AWSAppSync"]),
        .library(name: "AWSCognitoAuthPlugin", targets: ["AWSCognitoAuthPlugin"]),
        .library(name: "AWSCore", targets: ["AWSCore"]),
        .library(name: "AWSAuthCore", targets: ["AWSAuthCore"]),
        .library(name: "AWSAPIGateway", targets: ["AWSAPIGateway"]),
        .library(name: "AWSMobileClient", targets: ["AWSMobileClient"]),
        .library(name: "AmplifyPlugins", targets: ["AmplifyPlugins"]),
        .library(name: "StratusCodegen", targets: ["StratusCodegen"]),
        .library(name: "StratusServer", targets: ["StratusServer"]),
        .library(name: "StratusTesting", targets: ["StratusTesting"]),
        .executable(name: "stratus", targets: ["stratus"]),
    ],
    dependencies: [
        .package(url: "https://github.com/GraphQLSwift/GraphQL", from: "4.3.0"),
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
        .package(url: "https://github.com/apple/swift-crypto", "3.12.3"..<"5.0.0"),
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.10.0"),
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1"),
        .package(url: "https://github.com/hummingbird-project/hummingbird-websocket", from: "2.8.1"),
        .package(url: "https://github.com/apple/swift-http-types", from: "1.0.0"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.0.0"),
        .package(url: "https://github.com/OpenCombine/OpenCombine", from: "0.14.0"),
        .package(url: "https://github.com/vapor/jwt-kit", from: "5.8.0"),
        .package(url: "https://github.com/swift-server/async-http-client", from: "1.37.0"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.81.0"),
        .package(url: "https://github.com/swiftlang/swift-subprocess", from: "1.0.2"),
        .package(url: "https://github.com/apple/swift-system", from: "1.5.0"),
        .package(url: "https://github.com/attaswift/BigInt", from: "6.0.0"),
        .package(url: "https://github.com/apple/swift-collections", from: "1.1.0"),
        .package(url: "https://github.com/vapor/postgres-nio", from: "1.33.2"),
        .package(url: "https://github.com/apple/swift-nio-ssl", from: "2.25.0"),
        .package(url: "https://github.com/apple/swift-metrics", from: "2.5.0"),
        .package(url: "https://github.com/swift-server/swift-prometheus", from: "2.1.0"),
        .package(url: "https://github.com/apple/swift-distributed-tracing", from: "1.7.0"),
        // OTLP over HTTP only: the gRPC exporter's dependencies are not built.
        .package(url: "https://github.com/swift-otel/swift-otel", from: "1.6.0", traits: ["OTLPHTTP"]),
        // `swift package generate-documentation` for scripts/docs; no target depends on it.
        .package(url: "https://github.com/swiftlang/swift-docc-plugin", from: "1.4.0"),
    ],
    targets: [
        // The wire vocabulary of AWS and AppSync shared by the clients and the server: SigV4 signing and
        // verification, credentials, SRP's group, the base64url, hex and JSON text codecs, the generated
        // API's naming rules and the REST methods.
        .target(
            name: "AWSWire",
            dependencies: [
                .product(name: "BigInt", package: "BigInt"),
                .product(name: "Crypto", package: "swift-crypto"),
            ],
            swiftSettings: strict
        ),
        // The model runtime shared by generated code, the API category and DataStore.
        .target(
            name: "Amplify",
            dependencies: ["AWSWire", openCombine],
            swiftSettings: strict
        ),
        // What the AWS plugins share above the wire: credentials providers, the HTTP transports, the
        // real-time client and the model request builders.
        .target(
            name: "AWSPluginsCore",
            dependencies: [
                "Amplify",
                "AWSWire",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "HummingbirdWSClient", package: "hummingbird-websocket"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Tracing", package: "swift-distributed-tracing"),
            ],
            swiftSettings: strict
        ),
        // The API category: GraphQL and REST over HTTP with every AWS auth mode.
        .target(
            name: "AWSAPIPlugin",
            dependencies: [
                "Amplify", "AWSPluginsCore", "AWSWire", .product(name: "Tracing", package: "swift-distributed-tracing"),
            ],
            swiftSettings: strict
        ),
        // The AppSync client: its normalized cache, and the runtime the operations of API.swift build on.
        .target(
            name: "AWSAppSync",
            dependencies: [
                "Amplify", "AWSCore", "AWSPluginsCore", "AWSWire", .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "GRDBSQLite", package: "GRDB.swift"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "Tracing", package: "swift-distributed-tracing"),
            ],
            swiftSettings: strict
        ),
        // The Auth category on Cognito: user pools (SRP and password sign-in) and identity pools.
        .target(
            name: "AWSCognitoAuthPlugin",
            dependencies: [
                "Amplify",
                "AWSPluginsCore",
                "AWSWire",
                .product(name: "BigInt", package: "BigInt"),
                .product(name: "Crypto", package: "swift-crypto"),
            ],
            swiftSettings: strict
        ),
        // The AWS Mobile SDK's core, over the Auth category: AWSTask, regions, service configurations
        // and the identity pool's credentials provider.
        .target(
            name: "AWSCore",
            dependencies: ["Amplify", "AWSPluginsCore", "AWSWire", "AWSCognitoAuthPlugin"],
            swiftSettings: strict
        ),
        // The AWS Mobile SDK's identity manager, over the Auth category.
        .target(name: "AWSAuthCore", dependencies: ["Amplify", "AWSCore"], swiftSettings: strict),
        // The AWS Mobile SDK's API Gateway client: signed REST calls for the clients `codegen rest-client` writes.
        .target(
            name: "AWSAPIGateway",
            dependencies: ["Amplify", "AWSCore", "AWSPluginsCore", "AWSWire"],
            swiftSettings: strict
        ),
        // The AWS Mobile SDK's AWSMobileClient, over the Cognito Auth plugin.
        .target(
            name: "AWSMobileClient",
            dependencies: ["Amplify", "AWSAuthCore", "AWSCore", "AWSCognitoAuthPlugin", "AWSPluginsCore", "AWSWire"],
            swiftSettings: strict
        ),
        // Text bound and read with its length, NUL included, for DataStore and the server's store.
        .target(
            name: "SQLiteExactText",
            dependencies: [
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "GRDBSQLite", package: "GRDB.swift"),
            ],
            swiftSettings: strict
        ),
        // DataStore: the on-device store on SQLite, with predicates, relations and observation.
        .target(
            name: "AWSDataStorePlugin",
            dependencies: [
                "Amplify",
                "AWSPluginsCore",
                "AWSWire",
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "Tracing", package: "swift-distributed-tracing"),
                "SQLiteExactText",
                openCombine,
            ],
            swiftSettings: strict
        ),
        // The API, DataStore and Auth plugins under one import, `import AmplifyPlugins`.
        .target(
            name: "AmplifyPlugins",
            dependencies: ["AWSAPIPlugin", "AWSDataStorePlugin", "AWSCognitoAuthPlugin", "AWSPluginsCore"],
            swiftSettings: strict
        ),
        // The local AppSync-compatible backend, as a library.
        .target(
            name: "StratusServer",
            dependencies: [
                "StratusCodegen",
                "AWSWire",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "DequeModule", package: "swift-collections"),
                .product(name: "OrderedCollections", package: "swift-collections"),
                .product(name: "GRDB", package: "GRDB.swift"),
                "SQLiteExactText",
                .product(name: "GraphQL", package: "GraphQL"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "HummingbirdCore", package: "hummingbird"),
                .product(name: "HummingbirdWebSocket", package: "hummingbird-websocket"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "JWTKit", package: "jwt-kit"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOWebSocket", package: "swift-nio"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "UnixSignals", package: "swift-service-lifecycle"),
                .product(name: "CoreMetrics", package: "swift-metrics"),
                .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "Tracing", package: "swift-distributed-tracing"),
                .product(name: "OTel", package: "swift-otel"),
                .product(name: "Subprocess", package: "swift-subprocess"),
                .product(name: "SystemPackage", package: "swift-system"),
            ],
            swiftSettings: strict
        ),
        // The local Cognito: a user pool and identity pool served beside the API, which trusts
        // them through the server's public interfaces (the server does not depend on it).
        .target(
            name: "StratusCognito",
            dependencies: [
                "StratusServer",
                "AWSWire",
                .product(name: "BigInt", package: "BigInt"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "_CryptoExtras", package: "swift-crypto"),
                .product(name: "DequeModule", package: "swift-collections"),
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
            ],
            swiftSettings: strict
        ),
        // The Stratus Console: the page served at `/console` (HTML, CSS and JavaScript modules
        // without a build step, shipped as resources) and its JSON admin API under `/console/api`.
        .target(
            name: "StratusConsole",
            dependencies: [
                "StratusServer",
                "StratusCognito",
                "StratusCodegen",
                "AWSWire",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "NIOCore", package: "swift-nio"),
            ],
            resources: [.copy("Page")],
            swiftSettings: strict
        ),
        // The local backend assembled in one place: the server on its store, the local Cognito,
        // the authorization that trusts it and the HTTP server, as `stratus serve`, the tests,
        // the fuzzer and the benchmarks start it.
        .target(
            name: "StratusBackend",
            dependencies: ["StratusServer", "StratusCognito", "StratusCodegen", "StratusConsole"],
            swiftSettings: strict
        ),
        // Test vocabulary: the local backend in process on a free port, with configured clients.
        .target(
            name: "StratusTesting",
            dependencies: [
                "StratusBackend", "StratusServer", "StratusCognito", "StratusCodegen", "AWSAPIPlugin", "AWSPluginsCore",
                "AWSWire", "Amplify",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "Subprocess", package: "swift-subprocess"),
                .product(name: "SystemPackage", package: "swift-system"),
                .product(name: "Tracing", package: "swift-distributed-tracing"),
            ],
            swiftSettings: strict
        ),
        // Schema parsing and code generation from an annotated GraphQL schema.
        .target(
            name: "StratusCodegen",
            dependencies: [
                "AWSWire",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "GraphQL", package: "GraphQL"),
            ],
            swiftSettings: strict
        ),
        // The command-line tool.
        .executableTarget(
            name: "stratus",
            dependencies: [
                "AWSAppSync",
                "StratusCodegen",
                "StratusServer",
                "StratusCognito",
                "StratusBackend",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strict
        ),
        // The example app: a terminal todo list that syncs through `stratus serve`.
        .executableTarget(
            name: "todo-sync",
            dependencies: ["Amplify", "AWSAPIPlugin", "AWSDataStorePlugin"],
            path: "Examples/TodoSync/Sources",
            swiftSettings: strict
        ),
        // The AppSync client example: a terminal todo list over `stratus serve`, with the
        // `API.swift` that `stratus codegen types` generates from Examples/Todo/schema.graphql.
        .executableTarget(
            name: "todo-appsync",
            dependencies: ["AWSAppSync"],
            path: "Examples/TodoAppSync/Sources",
            swiftSettings: strict
        ),
        // Benchmarks: never linked by users.
        .executableTarget(
            name: "StratusBench",
            dependencies: [
                "StratusCodegen",
                "StratusServer",
                "StratusBackend",
                "Amplify",
                "AWSDataStorePlugin",
                "AWSAPIPlugin",
                "AWSPluginsCore",
                "AWSWire",
                "AWSAppSync",
                "TodoAPI",
                "ChaosAPI",
                "StratusTesting",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOWebSocket", package: "swift-nio"),
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "GraphQL", package: "GraphQL"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strict + [.define("STRATUS_BENCH_DATASTORE")]
        ),
        // The fuzzing target over the server's HTTP and real-time paths (`scripts/fuzz`); built
        // normally, it replays a corpus.
        .executableTarget(
            name: "StratusFuzz",
            dependencies: [
                "StratusCodegen",
                "StratusServer",
                "StratusBackend",
                .product(name: "HummingbirdWSClient", package: "hummingbird-websocket"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strict
        ),
        // Models generated from Tests/Fixtures/blog.graphql, compiled by `swift build`.
        .target(
            name: "BlogModels",
            dependencies: ["Amplify"],
            path: "Tests/Fixtures/BlogModels",
            swiftSettings: strict
        ),
        .testTarget(name: "AmplifyTests", dependencies: ["Amplify", "AWSWire", "BlogModels"], swiftSettings: strict),
        // SigV4 against botocore (the scripts of Reference/), with the signer's URLRequest form that
        // AWSPluginsCore adds.
        .testTarget(
            name: "AWSWireTests",
            dependencies: [
                "AWSWire", "AWSPluginsCore", "StratusTesting", .product(name: "Crypto", package: "swift-crypto"),
            ],
            exclude: ["Reference"],
            swiftSettings: strict
        ),
        .testTarget(
            name: "AWSPluginsCoreTests",
            dependencies: ["AWSPluginsCore", "AWSWire", "BlogModels", "StratusTesting"],
            swiftSettings: strict
        ),
        .testTarget(
            name: "AWSAPIPluginTests",
            dependencies: ["AWSAPIPlugin", "AWSDataStorePlugin", "BlogModels", "StratusTesting"],
            swiftSettings: strict
        ),
        .testTarget(
            name: "AWSCognitoAuthPluginTests",
            dependencies: [
                "AWSCognitoAuthPlugin", "AWSAPIPlugin", "StratusTesting", "StratusCognito",
                .product(name: "Crypto", package: "swift-crypto"),
            ],
            exclude: ["Reference"],
            swiftSettings: strict
        ),
        // The API Gateway client `stratus codegen rest-client` writes for the REST API of
        // Tests/Fixtures/rest-amplifyconfiguration.json, compiled by `swift build`.
        .target(
            name: "RESTClient",
            dependencies: ["AWSAPIGateway", "AWSCore"],
            path: "Tests/Fixtures/RESTClient",
            swiftSettings: strict
        ),
        .testTarget(
            name: "AWSMobileSDKTests",
            dependencies: [
                "AWSCore", "AWSAuthCore", "AWSAPIGateway", "AWSMobileClient", "AWSAppSync", "AWSCognitoAuthPlugin",
                "AWSPluginsCore", "RESTClient", "StratusTesting", "StratusServer", "StratusCognito", "TodoAPI",
            ],
            swiftSettings: strict
        ),
        .testTarget(
            name: "AWSDataStorePluginTests",
            dependencies: [
                "AWSDataStorePlugin", "AWSCognitoAuthPlugin", "AmplifyPlugins", "BlogModels", "StratusTesting",
                "StratusCognito", .product(name: "MetricsTestKit", package: "swift-metrics"),
            ],
            exclude: ["Interop"],
            swiftSettings: strict
        ),
        .testTarget(
            name: "StratusServerTests",
            dependencies: [
                "StratusServer",
                "AWSAPIPlugin",
                "AWSDataStorePlugin",
                "BlogModels",
                "AWSPluginsCore",
                "StratusBackend",
                "StratusCognito",
                "StratusCodegen",
                "StratusTesting",
                "AWSWire",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "GraphQL", package: "GraphQL"),
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "JWTKit", package: "jwt-kit"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdWSClient", package: "hummingbird-websocket"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOEmbedded", package: "swift-nio"),
                .product(name: "NIOWebSocket", package: "swift-nio"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "Tracing", package: "swift-distributed-tracing"),
                .product(name: "OTel", package: "swift-otel"),
            ],
            exclude: ["Interop"],
            swiftSettings: strict
        ),
        .testTarget(
            name: "StratusCodegenTests",
            dependencies: ["StratusCodegen", "StratusServer", "StratusTesting", "BlogModels"],
            resources: [.copy("Schemas")],
            swiftSettings: strict
        ),
        // Operations generated by `stratus codegen types` from the fixtures, compiled by `swift build`:
        // the Todo API (every construct the generator writes) in Swift 6 mode, the blog's in Swift 5 mode.
        .target(name: "TodoAPI", dependencies: ["AWSAppSync"], path: "Tests/Fixtures/TodoAPI", swiftSettings: strict),
        // The chaos run's folders and notes (`ChaosSchema`) as `stratus codegen types --max-depth 1`
        // writes them, for the run's AppSync client devices.
        .target(name: "ChaosAPI", dependencies: ["AWSAppSync"], path: "Tests/Fixtures/ChaosAPI", swiftSettings: strict),
        // The delta sync guide's posts API as `stratus codegen types` writes it.
        .target(
            name: "DeltaPostsAPI",
            dependencies: ["AWSAppSync"],
            path: "Tests/Fixtures/DeltaPostsAPI",
            swiftSettings: strict
        ),
        .target(
            name: "BlogAPI",
            dependencies: ["AWSAppSync"],
            path: "Tests/Fixtures/BlogAPI",
            swiftSettings: strict + [.swiftLanguageMode(.v5)]
        ),
        // A client process the exactly-once tests kill with SIGKILL while it queues and replays.
        .executableTarget(
            name: "AppSyncQueueChild",
            dependencies: ["AWSAppSync", "TodoAPI"],
            path: "Tests/AppSyncQueueChild",
            swiftSettings: strict
        ),
        .testTarget(
            name: "AWSAppSyncTests",
            dependencies: [
                "AWSAppSync", "AWSCognitoAuthPlugin", "AWSPluginsCore", "TodoAPI", "BlogAPI", "StratusTesting",
                "StratusServer", "StratusCognito", "AppSyncQueueChild", "DeltaPostsAPI",
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "MetricsTestKit", package: "swift-metrics"),
            ],
            exclude: ["Interop"],
            swiftSettings: strict
        ),
        // The benchmarks' own logic, such as the fan-out load generator's delivery accounting.
        .testTarget(
            name: "StratusBenchTests",
            dependencies: [
                "StratusBench", "AWSPluginsCore", "Amplify", .product(name: "NIOPosix", package: "swift-nio"),
            ],
            swiftSettings: strict
        ),
        // The backend as `stratus serve` assembles it.
        .testTarget(
            name: "StratusBackendTests",
            dependencies: [
                "StratusBackend", "StratusServer", "StratusCodegen", "StratusConsole", "StratusCognito",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
            ],
            swiftSettings: strict
        ),
        // The test vocabulary itself, such as the throwaway PostgreSQL cluster's databases.
        .testTarget(
            name: "StratusTestingTests",
            dependencies: [
                "StratusTesting",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
            ],
            swiftSettings: strict
        ),
        // `stratus` itself, run as a process: the dependency builds it next to the tests.
        .testTarget(
            name: "StratusCLITests",
            dependencies: [
                "stratus", "AWSAppSync", "AWSPluginsCore", "Amplify", "StratusTesting", "StratusServer",
                "StratusCodegen", "AWSDataStorePlugin", "BlogModels",
            ],
            exclude: ["Browser"],
            swiftSettings: strict
        ),
    ]
)
