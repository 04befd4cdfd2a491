import Foundation
import Testing

/// The image builds and runs with what Package.swift links (issue 28: the Dockerfile had lost libpq
/// and nothing noticed). No container engine runs here, so the Dockerfile is read and compared with
/// the manifest's `.systemLibrary` targets and with what the binary the tests built really loads on
/// this machine (readelf, ldd, dpkg: same Debian release as the image): a library added to the
/// package without its packages in the Dockerfile fails here.
@Suite("Container image: the Dockerfile installs what the package links")
struct ContainerImageTests {
    static let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    static func text(_ path: String) throws -> String {
        try String(contentsOf: packageRoot.appendingPathComponent(path), encoding: .utf8)
    }

    static func libraries(manifest: String? = nil) throws -> [SystemLibraryTarget] {
        try SystemLibraryTarget.parse(manifest: try manifest ?? text("Package.swift")) { directory in
            try text(directory + "/module.modulemap")
        }
    }

    static func check(dockerfile: String? = nil) throws -> ContainerImageCheck {
        ContainerImageCheck(libraries: try libraries(), dockerfile: Dockerfile(try dockerfile ?? text("Dockerfile")))
    }

    /// What this machine says about the built binary and the system libraries' files: read once
    /// (dpkg-query reads its whole database per call), shared by the tests below.
    struct Host: Sendable {
        var linked: [LinkedLibraries.Library]
        var developmentFiles: [String: [(what: String, path: String?)]]
        var owners: [String: String]
    }

    static let host = Result<Host, any Error> {
        let linked = try LinkedLibraries.direct(of: try LayoutdBinary.locate().path)
        var files: [String: [(what: String, path: String?)]] = [:]
        for library in try libraries() {
            for name in library.linkNames {
                let candidates = LinkedLibraries.linkerDirectories.map { "\($0)/lib\(name).so" }
                files[library.name, default: []].append(
                    (what: "-l\(name)", path: candidates.first { FileManager.default.fileExists(atPath: $0) }))
            }
            if let pkgConfig = library.pkgConfig {
                let path = (try? LinkedLibraries.run("/usr/bin/pkg-config", ["--path", pkgConfig]))?
                    .trimmingCharacters(in: .whitespacesAndNewlines)
                files[library.name, default: []].append((what: "pkg-config's \(pkgConfig).pc", path: path?.isEmpty == false ? path : nil))
            }
        }
        let paths = linked.compactMap(\.path) + files.values.flatMap { $0.compactMap(\.path) }
            + files.values.flatMap { $0.compactMap(\.path) }.map(LinkedLibraries.realPath)
        return Host(linked: linked, developmentFiles: files, owners: try LinkedLibraries.owners(of: Array(Set(paths))))
    }

    @Test("Package.swift's system libraries are read with their apt providers and module-map links")
    func manifestIsRead() throws {
        let libraries = try Self.libraries()
        // The four of today, as a floor: a parser that finds nothing would make every check below pass.
        let byName = Dictionary(uniqueKeysWithValues: libraries.map { ($0.name, $0) })
        #expect(byName["CLibPQ"]?.aptProviders == ["libpq-dev"])
        #expect(byName["CLibPQ"]?.pkgConfig == "libpq")
        #expect(byName["CLibPQ"]?.linkNames == ["pq"])
        #expect(byName["CLibevent"]?.linkNames == ["event", "event_pthreads"])
        #expect(Set(byName.keys).isSuperset(of: ["CLibevent", "CMimalloc", "CSQLite", "CLibPQ"]))
    }

    @Test("both stages are Debian of this machine's release, the runtime one a base image whose packages are known")
    func stagesAreThisRelease() throws {
        let problems = try Self.check().stageProblems(codename: try LinkedLibraries.debianCodename())
        #expect(problems.isEmpty, "\(problems.joined(separator: "\n"))")
    }

    @Test("the build stage installs every apt provider of Package.swift's system libraries, and pkg-config")
    func buildStageInstallsProviders() throws {
        let problems = try Self.check().buildStageProblems()
        #expect(problems.isEmpty, "\(problems.joined(separator: "\n"))")
    }

    @Test("each system library's apt provider is the package the linker takes it from, and its shared object is installed at run time")
    func providersMatchThisMachine() throws {
        let host = try Self.host.get()
        let problems = try Self.check().providerProblems(developmentFiles: host.developmentFiles, linked: host.linked, owners: host.owners)
        #expect(problems.isEmpty, "\(problems.joined(separator: "\n"))")
    }

    @Test("the runtime stage installs the Debian package of every shared library the built binary names")
    func runtimeStageInstallsWhatTheBinaryLoads() throws {
        let host = try Self.host.get()
        // libpq.so.5 and the other system libraries are among them (else the check proves little).
        let names = host.linked.map(\.soname)
        #expect(names.contains("libpq.so.5") && names.contains { $0.hasPrefix("libevent") }, "\(names)")
        let problems = try Self.check().runtimeStageProblems(linked: host.linked, owners: host.owners)
        #expect(problems.isEmpty, "\(problems.joined(separator: "\n"))")
    }

    @Test("the Dockerfile of issue 28 (no libpq-dev, no libpq5) is refused, naming both packages")
    func dockerfileWithoutLibPQIsRefused() throws {
        let host = try Self.host.get()
        let broken = try Self.text("Dockerfile").replacingOccurrences(of: " libpq-dev", with: "")
            .replacingOccurrences(of: " libpq5", with: "")
        let check = try Self.check(dockerfile: broken)
        let build = check.buildStageProblems()
        #expect(build.contains { $0.contains("does not install libpq-dev") && $0.contains("CLibPQ") }, "\(build)")
        let runtime = check.runtimeStageProblems(linked: host.linked, owners: host.owners)
        #expect(runtime.contains { $0.contains("libpq.so.5") && $0.contains("does not install libpq5") }, "\(runtime)")
    }

    @Test("a system library added to Package.swift without its package in the Dockerfile is refused")
    func newLibraryWithoutPackageIsRefused() throws {
        let manifest = try Self.text("Package.swift").replacingOccurrences(
            of: "targets: [\n", with: "targets: [\n.systemLibrary(name: \"CZlib\", pkgConfig: \"zlib\", providers: [.apt([\"zlib1g-dev\"])]),\n")
        let libraries = try SystemLibraryTarget.parse(manifest: manifest) { directory in
            directory == "Sources/CZlib" ? "module CZlib [system] {\n    link \"z\"\n}\n" : try Self.text(directory + "/module.modulemap")
        }
        #expect(libraries.contains { $0.name == "CZlib" })
        let check = ContainerImageCheck(libraries: libraries, dockerfile: Dockerfile(try Self.text("Dockerfile")))
        #expect(check.buildStageProblems() == ["the build stage does not install zlib1g-dev, the apt provider of CZlib in Package.swift"])
        // And one that names no apt provider cannot be checked, which is a failure too.
        let unprovided = ContainerImageCheck(
            libraries: [SystemLibraryTarget(name: "CFoo", aptProviders: [], linkNames: ["foo"])], dockerfile: check.dockerfile)
        #expect(unprovided.buildStageProblems().first?.contains("CFoo has no .apt") == true)
    }

    @Test("a system library whose apt provider is not the package its files come from is refused")
    func wrongProviderIsRefused() throws {
        let host = try Self.host.get()
        var check = try Self.check()
        let index = try #require(check.libraries.firstIndex { $0.name == "CLibPQ" })
        // The runtime package instead of the -dev one: it has no libpq.so or libpq.pc to build with.
        check.libraries[index].aptProviders = ["libpq5"]
        let problems = check.providerProblems(developmentFiles: host.developmentFiles, linked: host.linked, owners: host.owners)
        #expect(problems.contains { $0.hasPrefix("CLibPQ: -lpq") && $0.contains("comes from libpq-dev") }, "\(problems)")
        #expect(problems.contains { $0.hasPrefix("CLibPQ: pkg-config's libpq.pc") }, "\(problems)")
    }

    @Test("a runtime stage that drops the static Swift runtime or a library is refused")
    func runtimeLossesAreRefused() throws {
        let host = try Self.host.get()
        let text = try Self.text("Dockerfile")
        // The tests' debug binary loads the Swift runtime from the toolchain, the image's does not
        // (LAYOUTD_BINARY may name either): the toolchain's library is given here, owned by no package.
        let swiftCore = LinkedLibraries.Library(soname: "libswiftCore.so", path: "/opt/swift/usr/lib/swift/linux/libswiftCore.so")
        let dynamicSwift = try Self.check(dockerfile: text.replacingOccurrences(of: " --static-swift-stdlib", with: ""))
            .runtimeStageProblems(linked: host.linked + [swiftCore], owners: host.owners)
        #expect(dynamicSwift.contains { $0.contains("libswiftCore.so") && $0.contains("--static-swift-stdlib") }, "\(dynamicSwift)")
        let noEvent = try Self.check(dockerfile: text.replacingOccurrences(of: " libevent-2.1-7", with: ""))
            .runtimeStageProblems(linked: host.linked, owners: host.owners)
        #expect(noEvent.contains { $0.contains("libevent-2.1.so.7") }, "\(noEvent)")
    }

    /// Where the image's `serve` reads its keys (docker/entrypoint.sh, docs/deploy.md "Container").
    static let imageKeysFile = "/etc/layoutd/keys/api-keys"

    /// `docker/entrypoint.sh COMMAND… --print-config` with the image's ENV (its paths as the build
    /// context's files it copies there) plus `extra`.
    static func entrypointConfig(_ command: [String], _ extra: [String: String] = [:]) throws -> [String: Any] {
        let runtime = try #require(try Dockerfile(Self.text("Dockerfile")).runtimeStage)
        let copies = Dictionary(runtime.copiesFromContext.map { ($0.destination, $0.source) }, uniquingKeysWith: { first, _ in first })
        var environment = OperatorSettingsTests.environment(["LAYOUTD_BINARY": try LayoutdBinary.locate().path])
        for (variable, value) in runtime.environment {
            environment[variable] = copies[value].map { Self.packageRoot.appendingPathComponent($0).path } ?? value
        }
        for (k, v) in extra { environment[k] = v }
        let result = try LinkedLibraries.run("/bin/sh", [packageRoot.appendingPathComponent("docker/entrypoint.sh").path]
                                             + command + ["--print-config"], environment: environment)
        guard let printed = try JSONSerialization.jsonObject(with: Data(result.utf8)) as? [String: Any] else {
            throw TestFailure("entrypoint \(command): not a configuration: \(result.prefix(300))")
        }
        return printed
    }

    @Test("the image serves with keys unless told otherwise: --allow-anonymous or LAYOUTD_ALLOW_ANONYMOUS opens it deliberately, another keys file is taken")
    func imageServesWithKeysByDefault() throws {
        // Flags only (`docker run layoutd --threads 2`) are serve's, and keep the keys.
        let flagsOnly = try Self.entrypointConfig(["--threads", "2"])
        #expect(flagsOnly["apiKeysFile"] as? String == Self.imageKeysFile)
        #expect(flagsOnly["host"] as? String == "0.0.0.0")
        for (command, extra) in [(["serve", "--allow-anonymous"], [String: String]()), (["serve"], ["LAYOUTD_ALLOW_ANONYMOUS": "TRUE"])] {
            let open = try Self.entrypointConfig(command, extra)
            #expect(open["apiKeysFile"] as? String == "", "\(command) \(extra)")
            #expect(open["allowAnonymous"] as? Bool == true, "\(command) \(extra)")
            #expect(open["host"] as? String == "0.0.0.0")
        }
        let elsewhere = try Self.entrypointConfig(["serve"], ["LAYOUTD_API_KEYS_FILE": "/run/secrets/layoutd-keys"])
        #expect(elsewhere["apiKeysFile"] as? String == "/run/secrets/layoutd-keys")
        // --allow-anonymous drops only the image's default: a file the operator named stays.
        let named = try Self.entrypointConfig(["serve", "--allow-anonymous"], ["LAYOUTD_API_KEYS_FILE": "/run/secrets/layoutd-keys"])
        #expect(named["apiKeysFile"] as? String == "/run/secrets/layoutd-keys")
        // The HEALTHCHECK's `layoutd probe` runs outside the entrypoint, with the image's ENV: it
        // must pass the same protected-mode check as serve (0.0.0.0 with the keys file named).
        let runtime = try #require(try Dockerfile(Self.text("Dockerfile")).runtimeStage)
        #expect(runtime.environment["LAYOUTD_API_KEYS_FILE"] == Self.imageKeysFile)
        #expect(runtime.environment["LAYOUTD_HOST"] == "0.0.0.0")
        let flag = try Self.entrypointConfig(["serve", "--api-keys", "/srv/keys"])
        #expect(flag["apiKeysFile"] as? String == "/srv/keys")
        // The directory the keys are mounted on belongs to the image's user: a new named volume takes
        // that owner, so `docker run … layoutd keys new` can write the file into it.
        let keysDirectory = URL(fileURLWithPath: Self.imageKeysFile).deletingLastPathComponent().path
        #expect(runtime.instructions.contains {
            $0.keyword == "RUN" && $0.arguments.contains("mkdir -p") && $0.arguments.contains(keysDirectory)
                && $0.arguments.contains("chown -R 65534:65534") && $0.arguments.components(separatedBy: keysDirectory).count >= 3
        }, "no RUN in the runtime stage makes \(keysDirectory) and gives it to 65534")
    }

    @Test("the image's own ENV and configuration, through its entrypoint, run serve on every interface with the store on the volume")
    func imageEnvironmentRunsTheDaemon() throws {
        let dockerfile = try Dockerfile(Self.text("Dockerfile"))
        let runtime = try #require(dockerfile.runtimeStage)
        // Every LAYOUTD_ variable the image sets is one the daemon reads (OperatorSettingsTests keeps
        // that table complete), so a misspelt one cannot be silently ignored.
        let known = Set(OperatorSettingsTests.values.map(\.variable) + ["LAYOUTD_CONFIG"])
        for variable in runtime.environment.keys where variable.hasPrefix("LAYOUTD_") {
            #expect(known.contains(variable), "ENV \(variable) in the Dockerfile is no setting of layoutd")
        }
        // The image's paths are the build context's files it copies there.
        let copies = Dictionary(runtime.copiesFromContext.map { ($0.destination, $0.source) }, uniquingKeysWith: { first, _ in first })
        var environment = OperatorSettingsTests.environment(["LAYOUTD_BINARY": try LayoutdBinary.locate().path])
        for (variable, value) in runtime.environment {
            environment[variable] = copies[value].map { Self.packageRoot.appendingPathComponent($0).path } ?? value
        }
        #expect(runtime.environment["LAYOUTD_CONFIG"].flatMap { copies[$0] } == "config/layoutd.json")
        let command = try OperatorSettingsTests.execForm("CMD")
        let result = try LinkedLibraries.run("/bin/sh", [Self.packageRoot.appendingPathComponent("docker/entrypoint.sh").path]
                                             + command + ["--print-config"], environment: environment)
        let printed = try #require(try JSONSerialization.jsonObject(with: Data(result.utf8)) as? [String: Any])
        #expect(printed["host"] as? String == "0.0.0.0")
        #expect(printed["store"] as? String == "sqlite:data/layoutd.db")
        // On every interface, so with keys (issue 29): the mounted directory's file, not anonymous.
        #expect(printed["apiKeysFile"] as? String == Self.imageKeysFile)
        #expect(printed["allowAnonymous"] as? Bool == false)
        // The store's relative path lands in the volume: WORKDIR + data/ is the VOLUME.
        #expect(runtime.instructions.last { $0.keyword == "WORKDIR" }?.arguments == "/var/lib/layoutd")
        #expect(try OperatorSettingsTests.execForm("VOLUME") == ["/var/lib/layoutd/data"])
    }
}
