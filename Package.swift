// swift-tools-version:6.0
// pulse-ingest: RSS/Atom ingestion daemon for the Pulse news app.
// Data flows one way: config -> scheduler -> fetch -> parse -> enrich -> store.
import PackageDescription

let package = Package(
    name: "pulse-ingest",
    platforms: [.macOS(.v14)],
    products: [
        .executable(name: "pulse-ingest", targets: ["pulse-ingest"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-crypto", from: "4.5.2"),
        .package(url: "https://github.com/jpsim/Yams", from: "6.2.2"),
    ],
    targets: [
        // Thin C shims: module maps only (plus typed forwarders for curl's variadic calls).
        .systemLibrary(name: "CLibPQ", path: "Sources/CLibPQ", pkgConfig: "libpq",
                       providers: [.apt(["libpq-dev"])]),

        // Values shared along the pipeline (no I/O).
        .target(name: "PulseModel"),
        // feeds.yaml and the environment, parsed into validated values.
        .target(name: "PulseConfig", dependencies: [.product(name: "Yams", package: "Yams")]),
        // IP address parsing and the SSRF range policy, shared by the fetcher and stored-URL rules.
        .target(name: "AddressPolicy"),
        // URL canonicalisation bit-compatible with the old Go worker, and stored-URL rules.
        .target(name: "CanonicalURL", dependencies: [.product(name: "Crypto", package: "swift-crypto")]),
        // libpq behind a small async API, one dedicated thread per connection.
        .target(name: "Postgres", dependencies: [
            "CLibPQ",
            .product(name: "Logging", package: "swift-log"),
        ]),
        // The schema as embedded SQL migrations, applied under an advisory lock.
        .target(name: "Migrations", dependencies: [
            "Postgres",
            .product(name: "Crypto", package: "swift-crypto"),
            .product(name: "Logging", package: "swift-log"),
        ]),
        // Domain writes and reads: articles, sources, fetch state, fetch logs.
        .target(name: "ArticleStore", dependencies: [
            "Postgres", "PulseModel", "CanonicalURL", "AddressPolicy",
        ]),

        .executableTarget(name: "pulse-ingest", dependencies: [
            "Postgres", "Migrations", "ArticleStore", "PulseModel", "PulseConfig",
            .product(name: "ArgumentParser", package: "swift-argument-parser"),
            .product(name: "Logging", package: "swift-log"),
        ]),

        .testTarget(name: "AddressPolicyTests", dependencies: ["AddressPolicy"]),
        .testTarget(name: "PulseConfigTests", dependencies: ["PulseConfig"]),
        .testTarget(name: "CanonicalURLTests", dependencies: ["CanonicalURL"]),
        .testTarget(name: "PostgresTests", dependencies: [
            "Postgres", "Migrations", "ArticleStore", "PulseModel",
            .product(name: "Logging", package: "swift-log"),
        ], exclude: ["Fixtures"]),
    ]
)
