// swift-tools-version:6.1
// pulse-ingest: RSS/Atom ingestion daemon for the Pulse news app.
// Data flows one way: config -> scheduler -> fetch -> parse -> store -> enrich (rows are inserted,
// then their pages add to them: README's Layout says why). Sources/ has a folder per stage (Config,
// Fetch, Parse, Page, Store, Run) and Support for what every stage shares; a module depends only on
// earlier folders in that list and Support (Page never on Store: Run joins them; SourceImport is
// handed FeedParser's OPML reader by the import mode).
import PackageDescription

let package = Package(
    name: "pulse-ingest",
    platforms: [.macOS(.v15)],
    products: [
        .executable(name: "pulse-ingest", targets: ["pulse-ingest"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.13.0"),
        // feeds.yaml's YAML composer (PulseConfig), with its own copy of libyaml compiled in.
        .package(url: "https://github.com/jpsim/Yams", from: "6.2.2"),
        .package(url: "https://github.com/swift-server/swift-prometheus", from: "2.4.1"),
        // The HTTP listener (HTTP/1.1 on SwiftNIO) of the metrics endpoint and the WebSub callback. Its
        // default traits would add swift-configuration and full Foundation; the listener needs neither.
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1", traits: []),
    ],
    targets: [
        // Thin C shims: module maps only (plus typed forwarders for curl's variadic calls), linked as
        // pkg-config says.
        .systemLibrary(name: "CCurl", path: "Sources/Fetch/CCurl", pkgConfig: "libcurl", providers: [.apt(["libcurl4-openssl-dev"])]),
        .systemLibrary(name: "CLibPQ", path: "Sources/Store/CLibPQ", pkgConfig: "libpq", providers: [.apt(["libpq-dev"])]),
        // OpenSSL's libcrypto (libssl-dev, which libpq-dev brings) for SHA-256: url_hash and migration checksums.
        .systemLibrary(name: "CLibCrypto", path: "Sources/Support/CLibCrypto", pkgConfig: "libcrypto", providers: [.apt(["libssl-dev"])]),
        .systemLibrary(name: "CLibXML2", path: "Sources/Parse/CLibXML2", pkgConfig: "libxml-2.0", providers: [.apt(["libxml2-dev"])]),
        // gumbo is linked statically (CGumboGuard says why); gumbo.h is in the default include path.
        .systemLibrary(name: "CGumbo", path: "Sources/Page/CGumbo", providers: [.apt(["libgumbo-dev"])]),

        // Byte-level text scanning shared by every module that reads text (no dependencies).
        .target(name: "TextSupport", path: "Sources/Support/TextSupport"),
        // Values shared along the pipeline (no I/O).
        .target(name: "PulseModel", dependencies: ["TextSupport"], path: "Sources/Support/PulseModel"),
        // feeds.yaml and the environment, parsed into validated values.
        // Yams composes feeds.yaml; it imports Foundation, so the binary links swift-corelibs-foundation.
        .target(name: "PulseConfig", dependencies: ["PulseModel", "TextSupport", "AddressPolicy", "CanonicalURL", .product(name: "Yams", package: "Yams")], path: "Sources/Config/PulseConfig"),
        // IP address parsing and the SSRF range policy, shared by the fetcher and stored-URL rules.
        .target(name: "AddressPolicy", path: "Sources/Support/AddressPolicy"),
        // URL canonicalisation bit-compatible with the old Go worker, and stored-URL rules.
        .target(name: "CanonicalURL", dependencies: ["CLibCrypto", "AddressPolicy", "TextSupport"], path: "Sources/Support/CanonicalURL"),
        // libcurl's multi interface on one thread: caps, redirects re-checked, SSRF guard at connect.
        // Detached pthreads and a condition variable, for the blocking work kept off the cooperative pool.
        .target(name: "Threads", path: "Sources/Support/Threads"),
        .target(name: "HTTPFetcher", dependencies: [
            "CCurl", "AddressPolicy", "Threads", "PulseModel", "TextSupport",
            .product(name: "Logging", package: "swift-log"),
        ], path: "Sources/Fetch/HTTPFetcher"),
        // Sources from and to files (`--import-sources`, `--export-sources`): TSV, CSV and OPML (read by
        // FeedParser's OPMLParser, handed in), every row validated by PulseConfig's source rules.
        .target(name: "SourceImport", dependencies: ["PulseConfig", "PulseModel", "TextSupport", "CanonicalURL", "AddressPolicy"], path: "Sources/Config/SourceImport"),
        // RSS/Atom with libxml2's streaming reader: formats, extensions, encodings, hostile-input guards.
        .target(name: "FeedParser", dependencies: ["CLibXML2", "CanonicalURL", "WebText", "PulseModel"], path: "Sources/Parse/FeedParser"),
        // The one table of HTML named entities and the charset evidence shared by feeds and pages.
        .target(name: "WebText", dependencies: ["CLibXML2"], path: "Sources/Parse/WebText"),
        // libpq behind a small async API, one dedicated thread per connection.
        .target(name: "Postgres", dependencies: [
            "CLibPQ", "Threads", "TextSupport",
            .product(name: "Logging", package: "swift-log"),
        ], path: "Sources/Store/Postgres"),
        // The schema as embedded SQL migrations, applied under an advisory lock.
        .target(name: "Migrations", dependencies: [
            "Postgres", "CanonicalURL",
            .product(name: "Logging", package: "swift-log"),
        ], path: "Sources/Store/Migrations"),
        // Domain writes and reads: articles, sources, fetch state, fetch logs.
        .target(name: "ArticleStore", dependencies: [
            "Postgres", "PulseModel", "TextSupport", "CanonicalURL",
        ], path: "Sources/Store/ArticleStore"),

        // HTML with gumbo: charset detection, limits, a flat node tree freed right after parsing.
        .target(name: "HTMLDocument", dependencies: ["CGumbo", "CGumboGuard", "PulseModel", "TextSupport", "WebText"], path: "Sources/Page/HTMLDocument"),
        // gumbo run with counted allocations: abandoned past its memory or CPU budget.
        // Debian's libgumbo.a (libgumbo-dev), not libgumbo.so: gumbo's calls between its own files
        // (utf8iterator_next, gumbo_debug, ...) went through the shared library's PLT, about 2.5% of
        // an extraction's CPU samples in the stubs alone. Linked in, they are direct calls: 340 pages
        // pinned to one core took 6.6-11.6% less CPU (minimum and median of 12 interleaved rounds,
        // 228.7M -> 223.5M instructions on the 68-page subset), and a start loads and relocates
        // nothing for gumbo, which is what opening it on first use was for. `-l:` names the archive
        // itself, so the link never falls back to the shared library.
        .target(name: "CGumboGuard", dependencies: ["CGumbo"], path: "Sources/Page/CGumboGuard",
                linkerSettings: [.unsafeFlags(["-Xlinker", "-l:libgumbo.a"])]),
        // og:image and page metadata from the head, JSON-LD included.
        .target(name: "OpenGraph", dependencies: ["HTMLDocument", "CanonicalURL", "WebText", "PulseModel", "TextSupport"], path: "Sources/Page/OpenGraph"),
        // Mozilla Readability's algorithm on the gumbo tree, plus measured improvements.
        .target(name: "Readability", dependencies: ["HTMLDocument", "OpenGraph", "PulseModel", "TextSupport"], path: "Sources/Page/Readability"),
        // The only C++ in the project: extern "C" forwarders over CLD2 (Debian libcld2-dev). libcld2_full
        // (the ~160-language tables only) comes first, so its tables take precedence over libcld2's
        // small built-in ones (DetectionTests.fullTablesLoaded checks languages only they have).
        .target(name: "CCLD2", path: "Sources/Page/CCLD2", linkerSettings: [
            .unsafeFlags(["-Xlinker", "--no-as-needed"]), .linkedLibrary("cld2_full"), .linkedLibrary("cld2"),
        ]),
        // Per-article language: title + summary + body start with CLD2, else the source's language.
        .target(name: "LanguageTagger", dependencies: ["CCLD2", "PulseModel", "TextSupport"], path: "Sources/Page/LanguageTagger"),
        // One page fetch per article: og:image, readable body, language; used by ingest and --backfill
        // (Ingestion's EnrichmentMerge writes what it finds).
        .target(name: "Enrichment", dependencies: [
            "CanonicalURL", "HTTPFetcher", "HTMLDocument", "OpenGraph", "Readability", "LanguageTagger", "PulseModel", "TextSupport", "Threads",
            .product(name: "Logging", package: "swift-log"),
        ], path: "Sources/Page/Enrichment"),
        // When each source is due (adaptive intervals, hints, jitter); one fetch pass (fetch -> parse
        // -> store -> enrich, with fetch state and a fetch_logs row); the --backfill loop; the
        // long-running service (claim with leases, pass, repeat; graceful shutdown).
        .target(name: "Ingestion", dependencies: [
            "ArticleStore", "FeedParser", "HTTPFetcher", "PulseModel", "LanguageTagger", "Enrichment", "Threads",
            "CanonicalURL",
            .product(name: "Logging", package: "swift-log"),
            .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
        ], path: "Sources/Run/Ingestion"),
        // WebSub (push): subscribe/renew/unsubscribe through the fetcher, and the callback listener
        // (Hummingbird) that verifies intent and feeds signed pushes into the ingest path.
        .target(name: "WebSub", dependencies: [
            "ArticleStore", "Ingestion", "HTTPFetcher", "CLibCrypto", "HTTPServer", "PulseModel", "TextSupport",
            .product(name: "Hummingbird", package: "hummingbird"),
            .product(name: "Logging", package: "swift-log"),
            .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
        ], path: "Sources/Run/WebSub"),
        // The one HTTP listener (Hummingbird on SwiftNIO) of the metrics endpoint and the WebSub
        // callback, with the per-connection deadlines and per-client cap of a server facing strangers.
        .target(name: "HTTPServer", dependencies: [
            .product(name: "Hummingbird", package: "hummingbird"),
            .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            .product(name: "Logging", package: "swift-log"),
        ], path: "Sources/Run/HTTPServer"),
        // Log handlers (text/json lines), Prometheus metrics and the /metrics /healthz /readyz
        // endpoint on the HTTP listener.
        .target(name: "Observability", dependencies: [
            "HTTPServer", "AddressPolicy", "TextSupport",
            .product(name: "Hummingbird", package: "hummingbird"),
            .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            .product(name: "Logging", package: "swift-log"),
            .product(name: "Prometheus", package: "swift-prometheus"),
        ], path: "Sources/Run/Observability"),
        // sd_notify over NOTIFY_SOCKET (a datagram; no libsystemd).
        .target(name: "SystemdNotify", dependencies: ["TextSupport"], path: "Sources/Run/SystemdNotify"),
        // Test support, not the product: a tiny HTTP server bound to 127.0.0.1, and TLS servers with private CAs.
        .target(name: "LoopbackHTTPServer", path: "Tests/LoopbackHTTPServer"),

        .executableTarget(name: "pulse-ingest", dependencies: [
            "Postgres", "Migrations", "ArticleStore", "PulseModel", "TextSupport", "PulseConfig", "Ingestion",
            "FeedParser", "HTTPFetcher", "AddressPolicy", "Observability", "SystemdNotify", "Enrichment",
            "LanguageTagger", "SourceImport", "WebSub", "HTTPServer",
            .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            .product(name: "UnixSignals", package: "swift-service-lifecycle"),
            .product(name: "ArgumentParser", package: "swift-argument-parser"),
            .product(name: "Logging", package: "swift-log"),
        ], path: "Sources/Run/pulse-ingest",
        // mimalloc (Debian's libmimalloc2.0) replaces glibc's malloc for the whole process, the C
        // libraries included: it is in DT_NEEDED before libc, so its malloc and free are the ones
        // every library binds to. An extraction allocates and frees per node, string
        // and token; on the 340-page extraction bench, pinned to one core, it took 4-5% less CPU than
        // glibc tuned to keep its freed memory (mallopt, which this replaced), the daemon bench's
        // CPU and peak RSS stayed the same, and a start costs about 0.1 ms more (one small library).
        linkerSettings: [.linkedLibrary("mimalloc")]),

        // `make bench-language`: accuracy of the language rule on labelled texts.
        .executableTarget(name: "language-bench", dependencies: ["LanguageTagger"], path: "Tests/Benchmarks/LanguageBench"),
        // `make fuzz`: mutates Tests/Fuzz/Corpus through the feed parser and the page analyser.
        .executableTarget(name: "pulse-fuzz", dependencies: ["FeedParser", "Enrichment", "HTMLDocument"], path: "Tests/Fuzz/Driver"),

        .testTarget(name: "AddressPolicyTests", dependencies: ["AddressPolicy"]),
        .testTarget(name: "HTTPFetcherTests", dependencies: ["HTTPFetcher", "AddressPolicy", "PulseModel", "CCurl", "LoopbackHTTPServer", "TestSupport"]),
        .testTarget(name: "HTMLDocumentTests", dependencies: ["HTMLDocument"]),
        .testTarget(name: "OpenGraphTests", dependencies: ["OpenGraph", "HTMLDocument"]),
        .testTarget(name: "ReadabilityTests", dependencies: ["Readability", "HTMLDocument", "PulseModel", "TextSupport"], exclude: ["Fixtures"]),
        .testTarget(name: "IngestionTests", dependencies: [
            "Ingestion", "FeedParser", "ArticleStore", "OpenGraph", "HTMLDocument", "LanguageTagger",
            "HTTPFetcher", "LoopbackHTTPServer", "Postgres", "PulseModel", "TestSupport",
            .product(name: "Logging", package: "swift-log"),
        ]),
        .testTarget(name: "LanguageTaggerTests", dependencies: ["LanguageTagger", "CCLD2"], exclude: ["Fixtures"]),
        .testTarget(name: "SystemdNotifyTests", dependencies: ["SystemdNotify"]),
        .testTarget(name: "ThreadsTests", dependencies: ["Threads"]),
        .testTarget(name: "ObservabilityTests", dependencies: [
            "Observability", "AddressPolicy", "LoopbackHTTPServer", "TestSupport", "HTTPServer",
            .product(name: "Logging", package: "swift-log"),
            .product(name: "Hummingbird", package: "hummingbird"),
        ]),
        .testTarget(name: "FeedParserTests", dependencies: ["FeedParser", "PulseModel", "CanonicalURL"], exclude: ["Fixtures"]),
        .testTarget(name: "PulseConfigTests", dependencies: ["PulseConfig", "AddressPolicy", "CanonicalURL", "PulseModel", "TextSupport", .product(name: "Yams", package: "Yams")]),
        .testTarget(name: "CanonicalURLTests", dependencies: ["CanonicalURL"]),
        .testTarget(name: "SourceImportTests", dependencies: [
            "SourceImport", "PulseConfig", "FeedParser", "PulseModel", "ArticleStore", "Postgres", "TestSupport", "AddressPolicy",
        ]),
        .testTarget(name: "WebTextTests", dependencies: ["WebText"]),
        .testTarget(name: "WebSubTests", dependencies: [
            "WebSub", "ArticleStore", "Ingestion", "HTTPFetcher", "LoopbackHTTPServer", "Postgres", "PulseModel",
            "Threads", "TestSupport", "Migrations",
        ]),
        .testTarget(name: "PulseModelTests", dependencies: ["PulseModel", "TextSupport", "TestSupport"]),
        .testTarget(name: "TextSupportTests", dependencies: ["TextSupport", "TestSupport"]),
        // What the test targets share: a throw-away database per test and the `.needsDatabase` trait
        // (such tests skip themselves without PULSE_TEST_DATABASE_URL, as under `make test-unit`),
        // seeded sources, the fixture feed server, a private cluster.
        .target(name: "TestSupport", dependencies: [
            "AddressPolicy", "Postgres", "Migrations", "ArticleStore", "PulseModel", "HTTPFetcher", "LoopbackHTTPServer", "WebSub", "Threads",
            .product(name: "Logging", package: "swift-log"),
            .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
        ], path: "Tests/TestSupport"),
        .testTarget(name: "PostgresTests", dependencies: ["Postgres", "Migrations", "ArticleStore", "PulseModel", "TestSupport"]),
        .testTarget(name: "MigrationsTests", dependencies: [
            "Migrations", "Postgres", "ArticleStore", "PulseModel", "TestSupport",
        ], exclude: ["Fixtures"]),
        .testTarget(name: "ArticleStoreTests", dependencies: ["ArticleStore", "Postgres", "PulseModel", "TestSupport"]),
        .testTarget(name: "EnrichmentTests", dependencies: [
            "Enrichment", "ArticleStore", "Postgres", "PulseModel", "Ingestion", "HTTPFetcher", "LoopbackHTTPServer",
            "HTMLDocument", "OpenGraph", "Threads", "TestSupport",
        ]),
        // The executable end to end through the built binary: its modes, `--once`, the service
        // under systemd's protocol and database faults, and the dump modes' fetching.
        .testTarget(name: "PulseIngestTests", dependencies: [
            "pulse-ingest", "HTTPFetcher", "Observability", "PulseConfig", "LoopbackHTTPServer", "Postgres", "ArticleStore",
            "Migrations", "PulseModel", "TestSupport",
            .product(name: "ArgumentParser", package: "swift-argument-parser"),
        ], exclude: ["Fixtures"]),
    ]
)
