import Foundation

/// Whether the Dockerfile installs what Package.swift links: each check returns its problems, one
/// sentence each naming the package, library or stage at fault (empty when the image is right), so
/// the tests can also show that a wrong Dockerfile is caught.
struct ContainerImageCheck {
    var libraries: [SystemLibraryTarget]
    var dockerfile: Dockerfile

    /// Packages a runtime base image already carries that the binary may link without the
    /// Dockerfile naming them. debian:bookworm-slim is Debian's required set plus apt, which
    /// depends on libc6, libgcc-s1 and libstdc++6. A new base image must be added here
    /// deliberately (its packages differ), hence no default.
    static let baseImagePackages: [String: Set<String>] = [
        "debian:bookworm-slim": ["libc6", "libgcc-s1", "libstdc++6"],
    ]

    /// The Swift runtime of the toolchain (libswiftCore.so, Foundation…) is no Debian package; the
    /// tests' debug binary loads it from the toolchain, the image's binary carries it inside.
    static let staticSwiftFlag = "--static-swift-stdlib"

    /// Both stages exist and come from the Debian release whose packages were checked here.
    func stageProblems(codename: String) -> [String] {
        guard let build = dockerfile.buildStage else { return ["the Dockerfile has no build stage (FROM … AS build)"] }
        guard let runtime = dockerfile.runtimeStage, dockerfile.stages.count >= 2, runtime.name != "build" else {
            return ["the Dockerfile's last stage is its build stage: the image would carry the toolchain"]
        }
        var problems: [String] = []
        for (role, stage) in [("build", build), ("runtime", runtime)] where !stage.image.contains(codename) {
            problems.append("the \(role) stage's image \(stage.image) is not Debian \(codename), the release whose package names this test checked")
        }
        if Self.baseImagePackages[runtime.image] == nil {
            problems.append("the runtime stage's image \(runtime.image) is not one whose packages this test knows: add what it carries to ContainerImageCheck.baseImagePackages")
        }
        return problems
    }

    /// The build stage installs every apt provider of every system library, and pkg-config when a
    /// library is found through it.
    func buildStageProblems() -> [String] {
        guard let build = dockerfile.buildStage else { return ["the Dockerfile has no build stage (FROM … AS build)"] }
        let installed = Set(build.aptPackages)
        var problems: [String] = []
        for library in libraries {
            if library.aptProviders.isEmpty {
                problems.append("\(library.name) has no .apt([...]) provider in Package.swift: the image's build stage cannot know what to install for it")
            }
            for package in library.aptProviders where !installed.contains(package) {
                problems.append("the build stage does not install \(package), the apt provider of \(library.name) in Package.swift")
            }
            if let pkgConfig = library.pkgConfig, !installed.contains("pkg-config") {
                problems.append("the build stage does not install pkg-config, which finds \(library.name) (pkgConfig: \"\(pkgConfig)\")")
            }
        }
        return problems
    }

    /// Every library the binary names (`linked`) is installed by the runtime stage (by the Debian
    /// package `owners` says owns its file) or carried by its base image; the Swift runtime is
    /// linked in statically by the build stage.
    func runtimeStageProblems(linked: [LinkedLibraries.Library], owners: [String: String]) -> [String] {
        guard let runtime = dockerfile.runtimeStage, let build = dockerfile.buildStage else {
            return ["the Dockerfile has no build and runtime stages"]
        }
        let installed = Set(runtime.aptPackages)
        let base = Self.baseImagePackages[runtime.image] ?? []
        let staticSwift = build.runs.contains { $0.contains(Self.staticSwiftFlag) }
        var problems: [String] = []
        for library in linked {
            guard let path = library.path else {
                problems.append("the binary links \(library.soname), which the loader does not find on this machine")
                continue
            }
            if let package = owners[path] {
                if !installed.contains(package) && !base.contains(package) {
                    problems.append("the binary links \(library.soname) (\(path), Debian package \(package)) but the runtime stage (FROM \(runtime.image)) does not install \(package)")
                }
            } else if path.contains("/lib/swift/") {
                if !staticSwift {
                    problems.append("the binary links the Swift runtime's \(library.soname), which the runtime image does not have: the build stage must link it in (\(Self.staticSwiftFlag))")
                }
            } else {
                problems.append("the binary links \(library.soname) (\(path)), which no Debian package owns: the runtime stage cannot install it")
            }
        }
        return problems
    }

    /// Each system library's providers are right on this machine: the file the linker takes for
    /// `-lNAME` (and the pkg-config file) belongs to one of its apt providers, and the shared object
    /// it leads to is one the binary loads, from a package the runtime stage installs.
    /// `developmentFiles[library name]` lists (what, path) pairs found here; `owners` their packages.
    func providerProblems(developmentFiles: [String: [(what: String, path: String?)]], linked: [LinkedLibraries.Library],
                          owners: [String: String]) -> [String] {
        let runtime = Set(dockerfile.runtimeStage?.aptPackages ?? [])
        let loaded = Set(linked.compactMap(\.path))
        var problems: [String] = []
        for library in libraries {
            if library.linkNames.isEmpty {
                problems.append("\(library.name)'s module map links no library (no link \"…\" line)")
            }
            for (what, path) in developmentFiles[library.name] ?? [] {
                guard let path else {
                    problems.append("\(library.name): no \(what) on this machine (is \(library.aptProviders.joined(separator: ", ")) installed?)")
                    continue
                }
                let owner = owners[path] ?? "no package"
                if !library.aptProviders.contains(owner) {
                    problems.append("\(library.name): \(what) (\(path)) comes from \(owner), not from its apt providers \(library.aptProviders) in Package.swift")
                }
                // Only the linker's lib<name>.so leads to a shared object the binary loads.
                guard what.hasPrefix("-l") else { continue }
                let shared = LinkedLibraries.realPath(path)
                guard loaded.contains(shared) else {
                    problems.append("\(library.name): \(what) is \(shared), which the binary does not load")
                    continue
                }
                if let package = owners[shared], !runtime.contains(package) {
                    problems.append("\(library.name): the runtime stage does not install \(package), which provides \(shared), linked by the binary")
                }
            }
        }
        return problems
    }
}
