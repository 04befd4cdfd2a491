// swift-tools-version:6.0
import PackageDescription

// Linux only: EventHTTP's C helpers and the daemon use glibc and epoll-era libevent; no Apple
// platform is declared because none is built or tested.
//
// Dependencies point one way:
//   Cassowary (pure solver, imports nothing) ← LayoutEngine → LayoutModel → JSON
//   LayoutAPI → LayoutEngine, LayoutModel, JSON, Primitives, Storage, Telemetry, Access, WebAssets  (routes, middlewares, sessions, errors; no sockets, no SQLite)
//   WebAssets → LayoutEngine, LayoutModel  (the playground page and script, the JS client, the SVG renderer; no HTTP)
//   Telemetry: sharded lock-free counters, latency buckets, Prometheus text (imports only the C library)
//   EventHTTP → CLibevent, CEventHTTPSupport, Primitives    (libevent wrapper, no layout code)
//   Primitives: a lock, a clock, a thread starter, ASCII comparison, percent-decoding (imports only the C library)
//   Access → Primitives  (API keys: the keys file, SHA-256/HMAC, rate limits, stream tokens; imports only the C library besides)
//   layoutd → LayoutAPI, EventHTTP, CProblemReplies, CMimalloc, Storage, SQLiteStorage, PostgresStorage, Telemetry, Access, ArgumentParser, Logging
//   layout-bench → Cassowary, LayoutEngine, LayoutModel, LayoutAPI, JSON, Storage, SQLiteStorage, CMemoryProbe, ArgumentParser
//   Storage (session records, the store protocol, the in-memory store) → JSON
//   SQLiteStorage → Storage, CSQLite, Primitives  (the embedded store; nothing else imports SQLite)
//   PostgresStorage → Storage, CLibPQ, Primitives, JSON  (the shared store of several nodes; nothing else imports libpq)
// Packages: swift-argument-parser (the two command lines) and swift-log (the daemon's logger API,
// so an embedding program can route layoutd's logs); nothing else.
// Metrics (issue 23) are written by hand (Telemetry) rather than with swift-prometheus 2.4.1 (and
// swift-metrics): it would add three packages (it, swift-metrics, swift-atomics) to compile on every
// clean CI build, and its threading model does not fit the request path: a counter is one atomic
// shared by every thread (its cache line moves between the workers on each request), a histogram
// takes a lock per recorded value, and a counter for a label combination is found through the
// registry under its lock (or kept by the caller, one handle per route x method x status). Here a
// (route, method, status) counter is an array index and an addition is one relaxed atomic add on
// the calling thread's own shard: no lock, no shared line, no text until a scrape.
// Its cost is in docs/benchmarks.md ("Metrics"); the reasoning in docs/operations.md ("Metrics").
let package = Package(
    name: "layoutd",
    products: [
        .executable(name: "layoutd", targets: ["layoutd"]),
        .executable(name: "layout-bench", targets: ["layout-bench"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
        .package(url: "https://github.com/apple/swift-log", from: "1.6.0"),
    ],
    targets: [
        .target(name: "Cassowary"),
        // A lock, a clock, ASCII comparison and percent-decoding: what LayoutAPI and EventHTTP both need.
        .target(name: "Primitives"),
        // Counters the request path adds to without locks, and the Prometheus text made at scrape time.
        .target(name: "Telemetry"),
        .target(name: "JSON"),
        .target(name: "LayoutModel", dependencies: ["JSON"]),
        .target(name: "LayoutEngine", dependencies: ["Cassowary", "LayoutModel", "JSON"]),
        // What a browser is served, as content (clients/js/generate-assets) and the SVG renderer:
        // LayoutAPI answers the routes; nothing here knows about requests.
        .target(name: "WebAssets", dependencies: ["LayoutEngine", "LayoutModel"]),
        .target(name: "LayoutAPI", dependencies: ["LayoutEngine", "LayoutModel", "JSON", "Primitives", "Storage", "Telemetry", "Access",
                                                  "WebAssets"]),
        // API keys (issue 29): the keys file, SHA-256/HMAC, constant-time comparison, rate limits, stream tokens.
        .target(name: "Access", dependencies: ["Primitives"]),
        .systemLibrary(name: "CLibevent", pkgConfig: "libevent", providers: [.apt(["libevent-dev"])]),
        // C where Swift cannot reach: the CPUs of the affinity mask, the header pre-scan, and in
        // LibeventInternals.c every use of libevent beyond its documented API (http_struct.h fields,
        // evhttp's bufferevent callbacks, a reply written at once), owned in Swift by EventHTTP's
        // `LibeventInternals`, which checks the libevent version and probes them at start-up.
        // DWARF 4: valgrind 3.19 (Debian 12), used to profile the daemon, cannot read clang's DWARF 5.
        .target(name: "CEventHTTPSupport", dependencies: ["CLibevent"], cSettings: [.unsafeFlags(["-gdwarf-4"])]),
        .target(name: "EventHTTP", dependencies: ["CLibevent", "CEventHTTPSupport", "Primitives"]),
        // libevent's own error replies as problem+json: defines `evhttp_send_error` for the process, so only
        // the daemon links it, apart from LibeventInternals.c (whose accessors it reads the request
        // through); `layoutd serve` refuses to start when it is not in effect (EventHTTP's LibeventInternals).
        .target(name: "CProblemReplies", dependencies: ["CLibevent", "CEventHTTPSupport"], cSettings: [.unsafeFlags(["-gdwarf-4"])]),
        // Debian's libmimalloc-dev has no pkg-config file: the module map names the library.
        .systemLibrary(name: "CMimalloc", providers: [.apt(["libmimalloc-dev"])]),
        // Sessions that survive restarts (issue 21): the records and the protocol a backend implements.
        .target(name: "Storage", dependencies: ["JSON"]),
        // SQLite through Debian's C library (libsqlite3-dev, installed by scripts/lib/deps.sh like
        // libevent) rather than a Swift package: GRDB or SQLite.swift are not in the registries the
        // project's machines reach (Debian and PyPI only), and either would add a package to fetch and
        // compile on every clean build for an API we would wrap behind SessionStorage anyway: the store
        // needs a dozen statements, prepared once, and SQLite's own error codes (full, read-only, corrupt).
        .systemLibrary(name: "CSQLite", providers: [.apt(["libsqlite3-dev"])]),
        .target(name: "SQLiteStorage", dependencies: ["Storage", "CSQLite", "Primitives"]),
        // PostgreSQL (issue 22) through Debian's libpq (libpq-dev, installed by scripts/lib/deps.sh)
        // rather than postgres-nio: that package brings swift-nio and its dependencies, minutes of
        // compiling on every clean CI build, and an event-loop model the store would only block on
        // (SessionStorage is synchronous, called from the workers' threads). The store needs a
        // dozen prepared statements, LISTEN on one socket polled by its own thread, and libpq's
        // connection handling (URLs, keepalives, timeouts), which libpq gives directly.
        .systemLibrary(name: "CLibPQ", pkgConfig: "libpq", providers: [.apt(["libpq-dev"])]),
        .target(name: "PostgresStorage", dependencies: ["Storage", "CLibPQ", "Primitives", "JSON"]),
        .executableTarget(name: "layoutd", dependencies: [
            "LayoutAPI", "LayoutEngine", "LayoutModel", "JSON", "EventHTTP", "CProblemReplies", "CMimalloc", "Primitives",
            "Storage", "SQLiteStorage", "PostgresStorage", "Telemetry", "Access",
            .product(name: "ArgumentParser", package: "swift-argument-parser"),
            .product(name: "Logging", package: "swift-log"),
        ]),
        // glibc's live-bytes count (mallinfo2) for layout-bench's memory probe only.
        .target(name: "CMemoryProbe"),
        .executableTarget(name: "layout-bench", dependencies: [
            "Cassowary", "LayoutEngine", "LayoutModel", "LayoutAPI", "JSON", "Storage", "SQLiteStorage", "CMemoryProbe",
            .product(name: "ArgumentParser", package: "swift-argument-parser"),
        ]),
        // Helpers shared by the test targets (the conformance judge, a seeded generator, `eventually`).
        .target(name: "TestSupport", dependencies: ["JSON"], path: "Tests/TestSupport"),
        .testTarget(name: "CassowaryTests", dependencies: ["Cassowary", "TestSupport"]),
        .testTarget(name: "JSONTests", dependencies: ["JSON", "TestSupport"]),
        .testTarget(name: "LayoutModelTests", dependencies: ["LayoutModel", "JSON", "TestSupport"]),
        .testTarget(name: "LayoutEngineTests", dependencies: ["LayoutEngine", "Cassowary", "LayoutModel", "JSON", "TestSupport"]),
        .testTarget(name: "LayoutAPITests", dependencies: ["LayoutAPI", "LayoutEngine", "JSON", "TestSupport", "Storage", "Telemetry", "Access",
                                                       "WebAssets"]),
        .testTarget(name: "AccessTests", dependencies: ["Access", "Primitives", "TestSupport"]),
        .testTarget(name: "WebAssetsTests", dependencies: ["WebAssets", "LayoutEngine", "LayoutModel", "TestSupport"]),
        .testTarget(name: "StorageTests", dependencies: ["Storage", "SQLiteStorage", "CSQLite", "JSON", "PostgresStorage", "CLibPQ", "TestSupport"]),
        .testTarget(name: "DaemonTests", dependencies: ["EventHTTP", "CEventHTTPSupport", "CLibevent", "Primitives", "JSON", "TestSupport", "LayoutModel",
                                                   "Storage", "SQLiteStorage"]),
    ],
    swiftLanguageModes: [.v6]
)

// libFuzzer targets (Sources/Fuzz/<name>), declared only when LAYOUTD_FUZZ=1 so that the normal build,
// the tests and CI never compile them; scripts/fuzz builds them with -sanitize=fuzzer,address in .build-fuzz.
if Context.environment["LAYOUTD_FUZZ"] == "1" {
    package.targets.append(.target(name: "CFuzzDriver", path: "Sources/Fuzz/CFuzzDriver"))
    package.targets.append(.target(name: "FuzzSupport", dependencies: ["CFuzzDriver"], path: "Sources/Fuzz/FuzzSupport"))
    for (name, dependencies) in [
        ("fuzz-json", ["JSON"]),
        ("fuzz-document", ["JSON", "LayoutModel", "LayoutEngine"]),
        ("fuzz-patch", ["JSON", "LayoutModel", "LayoutEngine", "LayoutAPI", "TestSupport"]),
        ("fuzz-api", ["JSON", "LayoutAPI"]),
    ] as [(String, [Target.Dependency])] {
        package.targets.append(.executableTarget(
            name: name, dependencies: ["FuzzSupport"] + dependencies, path: "Sources/Fuzz/\(name)"))
        package.products.append(.executable(name: name, targets: [name]))
    }
}
