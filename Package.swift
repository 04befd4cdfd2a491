// swift-tools-version:6.0
import PackageDescription

// Linux only: EventHTTP's C helpers and the daemon use glibc and epoll-era libevent; no Apple
// platform is declared because none is built or tested.
//
// Dependencies point one way:
//   Cassowary (pure solver, imports nothing) ← LayoutEngine → LayoutModel → JSON
//   LayoutAPI → LayoutEngine, LayoutModel, JSON, Primitives, Storage  (routes, sessions, errors; no sockets, no SQLite)
//   EventHTTP → CLibevent, CEventHTTPSupport, Primitives    (libevent wrapper, no layout code)
//   Primitives: a lock, a clock, ASCII comparison, percent-decoding (imports only the C library)
//   layoutd → LayoutAPI, EventHTTP, CProblemReplies, CMimalloc, Storage, SQLiteStorage, ArgumentParser, Logging
//   layout-bench → Cassowary, LayoutEngine, LayoutModel, LayoutAPI, JSON, Storage, SQLiteStorage, ArgumentParser
//   Storage (session records, the store protocol, the in-memory store) → JSON
//   SQLiteStorage → Storage, CSQLite, Primitives  (the embedded store; nothing else imports SQLite)
// Packages: swift-argument-parser (the two command lines) and swift-log (the daemon's logger API,
// so an embedding program can route layoutd's logs); nothing else.
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
        .target(name: "JSON"),
        .target(name: "LayoutModel", dependencies: ["JSON"]),
        .target(name: "LayoutEngine", dependencies: ["Cassowary", "LayoutModel", "JSON"]),
        .target(name: "LayoutAPI", dependencies: ["LayoutEngine", "LayoutModel", "JSON", "Primitives", "Storage"]),
        .systemLibrary(name: "CLibevent", pkgConfig: "libevent", providers: [.apt(["libevent-dev"])]),
        // C where Swift cannot reach: a reply written at once (SendNow.c), the CPUs of the affinity mask.
        // DWARF 4: valgrind 3.19 (Debian 12), used to profile the daemon, cannot read clang's DWARF 5.
        .target(name: "CEventHTTPSupport", dependencies: ["CLibevent"], cSettings: [.unsafeFlags(["-gdwarf-4"])]),
        .target(name: "EventHTTP", dependencies: ["CLibevent", "CEventHTTPSupport", "Primitives"]),
        // libevent's own error replies as problem+json: defines `evhttp_send_error` for the process, so only
        // the daemon links it (checked at start-up by EventHTTP's TransportErrorProbe).
        .target(name: "CProblemReplies", dependencies: ["CLibevent"], cSettings: [.unsafeFlags(["-gdwarf-4"])]),
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
        .executableTarget(name: "layoutd", dependencies: [
            "LayoutAPI", "LayoutEngine", "LayoutModel", "JSON", "EventHTTP", "CProblemReplies", "CMimalloc", "Primitives",
            "Storage", "SQLiteStorage",
            .product(name: "ArgumentParser", package: "swift-argument-parser"),
            .product(name: "Logging", package: "swift-log"),
        ]),
        .executableTarget(name: "layout-bench", dependencies: [
            "Cassowary", "LayoutEngine", "LayoutModel", "LayoutAPI", "JSON", "Storage", "SQLiteStorage",
            .product(name: "ArgumentParser", package: "swift-argument-parser"),
        ]),
        // Helpers shared by the test targets (the conformance judge, a seeded generator).
        .target(name: "TestSupport", dependencies: ["JSON"], path: "Tests/TestSupport"),
        .testTarget(name: "CassowaryTests", dependencies: ["Cassowary", "TestSupport"]),
        .testTarget(name: "JSONTests", dependencies: ["JSON", "TestSupport"]),
        .testTarget(name: "LayoutModelTests", dependencies: ["LayoutModel", "JSON", "TestSupport"]),
        .testTarget(name: "LayoutEngineTests", dependencies: ["LayoutEngine", "Cassowary", "LayoutModel", "JSON", "TestSupport"]),
        .testTarget(name: "LayoutAPITests", dependencies: ["LayoutAPI", "LayoutEngine", "JSON", "TestSupport", "Storage"]),
        .testTarget(name: "StorageTests", dependencies: ["Storage", "SQLiteStorage", "CSQLite", "JSON"]),
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
