import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// What a binary links on this machine, and which Debian package owns each file: read with the
/// system's own tools (`readelf`, `ldd`, `dpkg-query`) so that the container image tests compare the
/// Dockerfile with what the build really produced, not with a list written by hand.
enum LinkedLibraries {
    struct Library: Equatable {
        /// The DT_NEEDED name (`libpq.so.5`).
        var soname: String
        /// Where the dynamic loader finds it here, symbolic links resolved; nil when `ldd` says
        /// "not found".
        var path: String?
    }

    /// The libraries `binary` names itself (DT_NEEDED; not what those load in turn, which their
    /// Debian packages depend on), each with the file the loader resolves it to.
    static func direct(of binary: String) throws -> [Library] {
        let dynamic = try run("/usr/bin/readelf", ["-d", "-W", binary])
        // " 0x0000000000000001 (NEEDED)             Shared library: [libpq.so.5]"
        let needed = dynamic.split(separator: "\n").compactMap { line -> String? in
            guard line.contains("(NEEDED)"), let open = line.lastIndex(of: "["), let close = line.lastIndex(of: "]") else { return nil }
            return String(line[line.index(after: open)..<close])
        }
        guard !needed.isEmpty else { throw TestFailure("readelf -d \(binary) lists no NEEDED library") }
        let resolved = try resolvedPaths(of: binary)
        return needed.map { Library(soname: $0, path: resolved[$0].map(realPath)) }
    }

    /// `ldd`'s soname → path table: `libpq.so.5 => /lib/x86_64-linux-gnu/libpq.so.5 (0x…)` and the
    /// loader's own `/lib64/ld-linux-x86-64.so.2 (0x…)`.
    private static func resolvedPaths(of binary: String) throws -> [String: String] {
        var paths: [String: String] = [:]
        for line in try run("/usr/bin/ldd", [binary]).split(separator: "\n") {
            let words = line.split(whereSeparator: { $0 == " " || $0 == "\t" }).map(String.init)
            if words.count >= 3, words[1] == "=>", words[2].hasPrefix("/") {
                paths[words[0]] = words[2]
            } else if let first = words.first, first.hasPrefix("/") {
                paths[URL(fileURLWithPath: first).lastPathComponent] = first
            }
        }
        return paths
    }

    /// The Debian package owning each path (architecture suffix dropped); paths no package owns are
    /// absent. One `dpkg-query` for all: it reads the whole package database each time.
    static func owners(of paths: [String]) throws -> [String: String] {
        guard !paths.isEmpty else { return [:] }
        // dpkg knows a file by the path its package ships, and on a merged-/usr system that is
        // /lib/… for some (libc6) and /usr/lib/… for others (libpq5): ask for both spellings.
        let spellings = Dictionary(paths.flatMap { path in mergedUsrSpellings(of: path).map { ($0, path) } },
                                   uniquingKeysWith: { first, _ in first })
        // Exit 1 when some path has no owner; the found ones are still printed.
        let output = try run("/usr/bin/dpkg-query", ["-S"] + spellings.keys.sorted(), acceptedStatuses: [0, 1])
        var owners: [String: String] = [:]
        // "libpq5:amd64: /usr/lib/x86_64-linux-gnu/libpq.so.5.15"; "diversion by …" lines skipped.
        for line in output.split(separator: "\n") where !line.hasPrefix("diversion ") {
            guard let separator = line.range(of: ": /") else { continue }
            let package = line[..<separator.lowerBound].split(separator: ",").first.map(String.init) ?? ""
            let name = package.split(separator: ":").first.map(String.init) ?? package
            if let path = spellings[String(line[line.index(before: separator.upperBound)...])] {
                owners[path] = name.trimmingCharacters(in: .whitespaces)
            }
        }
        return owners
    }

    /// `/usr/lib/x` and `/lib/x` are one file when /lib is a link to usr/lib (Debian 12).
    private static func mergedUsrSpellings(of path: String) -> [String] {
        for (merged, legacy) in [("/usr/lib/", "/lib/"), ("/usr/lib64/", "/lib64/")] {
            if path.hasPrefix(merged) { return [path, legacy + path.dropFirst(merged.count)] }
            if path.hasPrefix(legacy) { return [path, merged + path.dropFirst(legacy.count)] }
        }
        return [path]
    }

    /// The path with every symbolic link resolved (`/lib` is one on a merged-/usr system, and
    /// `dpkg` knows files by their real path).
    static func realPath(_ path: String) -> String {
        guard let resolved = realpath(path, nil) else { return path }
        defer { free(resolved) }
        return String(cString: resolved)
    }

    /// The folders where the linker finds `-lNAME` on this machine (Debian's multiarch layout).
    static var linkerDirectories: [String] {
        var name = utsname()
        uname(&name)
        let machine = withUnsafeBytes(of: &name.machine) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
        return ["/usr/lib/\(machine)-linux-gnu", "/usr/lib", "/usr/local/lib"]
    }

    /// This machine's Debian release (`bookworm`), from /etc/os-release.
    static func debianCodename() throws -> String {
        let text = try String(contentsOfFile: "/etc/os-release", encoding: .utf8)
        guard let line = text.split(separator: "\n").first(where: { $0.hasPrefix("VERSION_CODENAME=") }) else {
            throw TestFailure("/etc/os-release has no VERSION_CODENAME")
        }
        return Dockerfile.unquoted(String(line.dropFirst("VERSION_CODENAME=".count)))
    }

    /// Runs a tool to completion (10 s at most) and returns its standard output.
    static func run(_ tool: String, _ arguments: [String], environment: [String: String]? = nil,
                    acceptedStatuses: Set<Int32> = [0]) throws -> String {
        guard FileManager.default.isExecutableFile(atPath: tool) else {
            throw TestFailure("\(tool) is not installed (binutils, libc-bin and dpkg provide the tools this test reads)")
        }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: tool)
        process.arguments = arguments
        if let environment { process.environment = environment }
        process.standardInput = FileHandle.nullDevice
        let out = Pipe(), err = Pipe()
        let errors = OutputCollector()
        err.fileHandleForReading.readabilityHandler = { errors.append($0.availableData) }
        process.standardOutput = out
        process.standardError = err
        try process.run()
        let output = out.fileHandleForReading.readDataToEndOfFile()
        let exit = ChildExit(process)
        guard exit.wait(timeout: 10) else {
            exit.kill()
            throw TestFailure("\(tool) \(arguments.joined(separator: " ")) did not finish within 10 s")
        }
        err.fileHandleForReading.readabilityHandler = nil
        errors.append(err.fileHandleForReading.readDataToEndOfFile())
        guard acceptedStatuses.contains(exit.shellStatus) else {
            throw TestFailure("\(tool) \(arguments.joined(separator: " ")) exited \(exit.shellStatus): \(errors.text)")
        }
        return String(decoding: output, as: UTF8.self)
    }
}
