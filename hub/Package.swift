// swift-tools-version: 6.2
// nearcast-hub: the server that turns heard tokens into messages, in the Proximity Beacon API's
// shapes. Its own package so the box's binary never links a server library; it shares the box's
// Eddystone-EID maths by depending on NearcastCore by path. See docs/venue-operator.md ("The hub").
import PackageDescription

let package = Package(
    name: "nearcast-hub",
    platforms: [.macOS(.v14)],
    products: [
        .executable(name: "nearcast-hub", targets: ["nearcast-hub"]),
        .executable(name: "nearcast-hub-phones", targets: ["nearcast-hub-phones"]),
    ],
    dependencies: [
        .package(name: "nearcast", path: ".."),
        .package(url: "https://github.com/hummingbird-project/hummingbird.git", from: "2.28.1"),
        .package(url: "https://github.com/vapor/sql-kit.git", from: "3.36.0"),
        .package(url: "https://github.com/vapor/sqlite-kit.git", from: "4.5.2"),
        .package(url: "https://github.com/vapor/postgres-kit.git", from: "2.17.0"),
        .package(url: "https://github.com/vapor/postgres-nio.git", from: "1.33.2"),
        .package(url: "https://github.com/apple/swift-crypto.git", from: "4.0.0"),
        .package(url: "https://github.com/apple/swift-log.git", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-metrics.git", from: "2.13.0"),
        .package(url: "https://github.com/swift-server/swift-prometheus.git", from: "2.4.1"),
        .package(url: "https://github.com/apple/swift-argument-parser.git", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.101.2"),
        .package(url: "https://github.com/apple/swift-http-types.git", from: "1.8.0"),
        .package(url: "https://github.com/vapor/async-kit.git", from: "1.22.0"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle.git", from: "2.13.0"),
        .package(url: "https://github.com/apple/swift-nio-ssl.git", from: "2.37.6"),
        .package(url: "https://github.com/swift-server/async-http-client.git", from: "1.37.0"),
    ],
    targets: [
        // libqrencode (Debian's libqrencode-dev): the join address's QR code for Present.
        .systemLibrary(name: "CQRencode", path: "Sources/CQRencode", pkgConfig: "libqrencode",
                       providers: [.apt(["libqrencode-dev"])]),
        // The release version, stamped by tools/package/package-hub (-Xcc -DNEARCAST_HUB_VERSION=...).
        .systemLibrary(name: "CHubBuildStamp", path: "Sources/CHubBuildStamp"),
        // The hub: its data's types, the repositories as protocols (and in memory), the Eddystone
        // registration and resolution, the HTTP API, watches, Present and the operators' page.
        // No SQL: where the data is kept is a `HubBackend`.
        .target(
            name: "NearcastHub",
            dependencies: [
                "CQRencode",
                .product(name: "NearcastCore", package: "nearcast"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdCore", package: "hummingbird"),
                .product(name: "HummingbirdHTTP2", package: "hummingbird"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "UnixSignals", package: "swift-service-lifecycle"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "CryptoExtras", package: "swift-crypto"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "Prometheus", package: "swift-prometheus"),
                // Fetching a conference's schedule from its tool (a URL import and its refresh).
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
            ]
        ),
        // The hub's database (one schema, SQLite or PostgreSQL): the SQL stores, the schema's
        // migrations, NOTIFY and LISTEN, and the commands that work on the database directly.
        // The only target that imports SQLKit, PostgresNIO or SQLiteNIO.
        .target(
            name: "NearcastHubStorage",
            dependencies: [
                "NearcastHub",
                .product(name: "NearcastCore", package: "nearcast"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "SQLKit", package: "sql-kit"),
                .product(name: "SQLiteKit", package: "sqlite-kit"),
                .product(name: "PostgresKit", package: "postgres-kit"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "AsyncKit", package: "async-kit"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        .executableTarget(
            name: "nearcast-hub",
            dependencies: [
                "NearcastHub",
                "NearcastHubStorage",
                "CHubBuildStamp",
                // sd_notify, shared with the box (Glibc only: nothing else of the box's).
                .product(name: "NearcastSystemd", package: "nearcast"),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        // The load tool (tools/bench/phones runs it): thousands of phones' lives on raw SwiftNIO
        // HTTP/1.1 channels, and the presenter measuring them. A bench tool, not the hub's: the
        // Debian package builds and installs `--product nearcast-hub` only.
        .executableTarget(
            name: "nearcast-hub-phones",
            dependencies: [
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
            ]
        ),
        .testTarget(
            name: "NearcastHubTests",
            dependencies: [
                "NearcastHub",
                "NearcastHubStorage",
                .product(name: "HummingbirdTesting", package: "hummingbird"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "NIOEmbedded", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
    ],
    swiftLanguageModes: [.v6]
)

// The hub's fuzz targets (hub/Fuzz, run by tools/check/fuzz): only when tools/check/fuzz builds them, in
// their own scratch path (.build-fuzz) with NEARCAST_HUB_FUZZ=1. NearcastHub is then compiled
// with libFuzzer's coverage instrumentation and AddressSanitizer (its dependencies are not: the
// coverage that guides the fuzzer is the hub's own code), and each target links compiler-rt's
// libFuzzer without its main (NEARCAST_HUB_FUZZ_RUNTIME), calling its driver from a main that
// sets up a hub first.
if Context.environment["NEARCAST_HUB_FUZZ"] == "1" {
    let runtime = Context.environment["NEARCAST_HUB_FUZZ_RUNTIME"] ?? "libclang_rt.fuzzer_no_main-x86_64.a"
    for target in package.targets where target.name == "NearcastHub" || target.name == "NearcastHubStorage" {
        target.swiftSettings = (target.swiftSettings ?? []) + [.unsafeFlags(["-sanitize=fuzzer,address"])]
    }
    package.targets += [
        .systemLibrary(name: "CLibFuzzer", path: "Fuzz/CLibFuzzer"),
        .executableTarget(
            name: "hub_requests",
            dependencies: [
                "NearcastHub", "NearcastHubStorage", "CLibFuzzer",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOEmbedded", package: "swift-nio"),
                .product(name: "SQLKit", package: "sql-kit"),
                .product(name: "Logging", package: "swift-log"),
            ],
            path: "Fuzz/hub_requests",
            swiftSettings: [.unsafeFlags(["-sanitize=address"])],
            linkerSettings: [.unsafeFlags(["-sanitize=address", "-Xlinker", runtime, "-lstdc++"])]
        ),
    ]
}
