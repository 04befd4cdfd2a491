// swift-tools-version:6.0
import PackageDescription

// Dependencies point one way:
//   Cassowary (pure solver) ← LayoutEngine → LayoutModel → JSON
//   LayoutAPI → LayoutEngine, LayoutModel, JSON      (routes, no sockets)
//   EventHTTP → CLibevent                            (libevent wrapper, no layout code)
//   layoutd → LayoutAPI + EventHTTP (+ CMimalloc: the process's malloc); layout-bench → LayoutEngine
let package = Package(
    name: "layoutd",
    platforms: [.macOS(.v13)],
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
        .target(name: "JSON"),
        .target(name: "LayoutModel", dependencies: ["JSON"]),
        .target(name: "LayoutEngine", dependencies: ["Cassowary", "LayoutModel", "JSON"]),
        .target(name: "LayoutAPI", dependencies: ["LayoutEngine", "LayoutModel", "JSON"]),
        .systemLibrary(name: "CLibevent", pkgConfig: "libevent", providers: [.apt(["libevent-dev"])]),
        // libevent's header printf, header-name comparison, HTTP-version sscanf, read sizing and unchanged
        // epoll interest, overridden for the process (FastPaths.c, EpollInterest.c), and replies written at once
        // (SendNow.c).
        // DWARF 4: valgrind 3.19 (Debian 12), used to profile the daemon, cannot read clang's DWARF 5.
        // _GNU_SOURCE: dl_iterate_phdr (the overrides find libevent's code with it) and RTLD_NEXT.
        .target(name: "CEvhttpFastPaths", dependencies: ["CLibevent"],
                cSettings: [.define("_GNU_SOURCE"), .unsafeFlags(["-gdwarf-4"])]),
        .target(name: "EventHTTP", dependencies: ["CLibevent", "CEvhttpFastPaths"]),
        // Debian's libmimalloc-dev has no pkg-config file: the module map names the library.
        .systemLibrary(name: "CMimalloc", providers: [.apt(["libmimalloc-dev"])]),
        .executableTarget(name: "layoutd", dependencies: [
            "LayoutAPI", "LayoutEngine", "LayoutModel", "JSON", "EventHTTP", "CMimalloc",
            .product(name: "ArgumentParser", package: "swift-argument-parser"),
            .product(name: "Logging", package: "swift-log"),
        ]),
        .executableTarget(name: "layout-bench", dependencies: [
            "Cassowary", "LayoutEngine", "LayoutModel", "LayoutAPI", "JSON",
            .product(name: "ArgumentParser", package: "swift-argument-parser"),
        ]),
        // Helpers shared by the test targets (the conformance judge, a seeded generator).
        .target(name: "TestSupport", dependencies: ["JSON"], path: "Tests/TestSupport"),
        .testTarget(name: "CassowaryTests", dependencies: ["Cassowary", "TestSupport"]),
        .testTarget(name: "JSONTests", dependencies: ["JSON", "TestSupport"]),
        .testTarget(name: "LayoutModelTests", dependencies: ["LayoutModel", "JSON", "TestSupport"]),
        .testTarget(name: "LayoutEngineTests", dependencies: ["LayoutEngine", "LayoutModel", "JSON", "TestSupport"]),
        .testTarget(name: "LayoutAPITests", dependencies: ["LayoutAPI", "LayoutEngine", "JSON", "TestSupport"]),
        .testTarget(name: "DaemonTests", dependencies: ["EventHTTP", "CEvhttpFastPaths", "CLibevent", "JSON", "TestSupport"]),
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
        ("fuzz-patch", ["JSON", "LayoutAPI", "TestSupport"]),
        ("fuzz-api", ["JSON", "LayoutAPI"]),
    ] as [(String, [Target.Dependency])] {
        package.targets.append(.executableTarget(
            name: name, dependencies: ["FuzzSupport"] + dependencies, path: "Sources/Fuzz/\(name)"))
        package.products.append(.executable(name: name, targets: [name]))
    }
}
