// swift-tools-version: 6.2
import PackageDescription

let strict: [SwiftSetting] = [.treatAllWarnings(as: .error)]

let package = Package(
    name: "Stratus",
    platforms: [.macOS(.v15), .iOS(.v18)],
    products: [
        .library(name: "Amplify", targets: ["Amplify"]),
        .library(name: "StratusCodegen", targets: ["StratusCodegen"]),
        .executable(name: "stratus", targets: ["stratus"]),
    ],
    dependencies: [
        .package(url: "https://github.com/GraphQLSwift/GraphQL", from: "4.3.0"),
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
        .package(url: "https://github.com/apple/swift-crypto", "3.12.3"..<"5.0.0"),
    ],
    targets: [
        // The model runtime shared by generated code, the API category and DataStore.
        .target(name: "Amplify", swiftSettings: strict),
        // Schema parsing and code generation from an annotated GraphQL schema.
        .target(
            name: "StratusCodegen",
            dependencies: [
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "GraphQL", package: "GraphQL"),
            ],
            swiftSettings: strict
        ),
        // The command-line tool.
        .executableTarget(
            name: "stratus",
            dependencies: [
                "StratusCodegen",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            swiftSettings: strict
        ),
        // Benchmarks: never linked by users.
        .executableTarget(
            name: "StratusBench",
            dependencies: ["StratusCodegen"],
            swiftSettings: strict
        ),
        // Models generated from Tests/Fixtures/blog.graphql, compiled by `swift build`.
        .target(
            name: "BlogModels",
            dependencies: ["Amplify"],
            path: "Tests/Fixtures/BlogModels",
            swiftSettings: strict
        ),
        .testTarget(name: "AmplifyTests", dependencies: ["Amplify", "BlogModels"], swiftSettings: strict),
        .testTarget(
            name: "StratusCodegenTests",
            dependencies: ["StratusCodegen", "BlogModels"],
            resources: [.copy("Schemas")],
            swiftSettings: strict
        ),
    ]
)
