import Foundation
import TestSupport

#if canImport(Glibc)
import Glibc
#endif

/// Collects a pipe's output on a background thread, so the child never blocks on a full pipe.
final class OutputCollector: @unchecked Sendable {
    private let lock = NSLock()
    private var data = Data()
    private var sawEnd = false

    /// Called from the pipe's readability handler: an empty chunk is the end of the output.
    func append(_ chunk: Data) {
        lock.lock()
        if chunk.isEmpty { sawEnd = true }
        data.append(chunk)
        lock.unlock()
    }

    /// The handler has read the end of the output: everything written before is in `text`.
    var ended: Bool {
        lock.lock()
        defer { lock.unlock() }
        return sawEnd
    }

    var text: String {
        lock.lock()
        defer { lock.unlock() }
        return String(decoding: data, as: UTF8.self)
    }
}

/// Runs the built `layoutd` binary.
enum LayoutdBinary {
    /// Where `swift build` put `layoutd`. Looked for, in order: `$LAYOUTD_BINARY`; next to the
    /// test executable (SwiftPM puts test bundles and executables in the same folder); the
    /// package's `.build*/debug` folders, newest first.
    static func locate() throws -> URL {
        let binary = try find()
        if ProcessInfo.processInfo.environment["LAYOUTD_BINARY"] == nil {
            try checkNotStale(binary)
        }
        return binary
    }

    private static let packageRoot = URL(fileURLWithPath: #filePath)  // Tests/DaemonTests/Support/Daemon.swift
        .deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent()

    /// The source folders whose edits these tests are about: the daemon, its HTTP layer, and the API
    /// and engine it serves.
    private static let watchedSources = [
        "layoutd", "EventHTTP", "CLibevent", "CEventHTTPSupport", "CProblemReplies", "LayoutAPI", "LayoutEngine", "LayoutModel", "Cassowary", "JSON",
        "Storage", "SQLiteStorage", "Primitives", "Access", "PostgresStorage", "Telemetry",
    ]

    /// `swift test` recompiles the layoutd module but does not relink the executable, so after an
    /// edit the binary can be older than the code under test: refuse it rather than test old code.
    private static func checkNotStale(_ binary: URL) throws {
        let built = modificationDate(binary)
        for folder in watchedSources {
            let sources = packageRoot.appendingPathComponent("Sources").appendingPathComponent(folder)
            let files = (try? FileManager.default.contentsOfDirectory(at: sources, includingPropertiesForKeys: nil)) ?? []
            for file in files where modificationDate(file) > built {
                throw TestFailure("""
                    \(binary.path) is older than \(file.path): run `swift build` (with the same \
                    --scratch-path) before `swift test`; scripts/test does both
                    """)
            }
        }
    }

    private static func find() throws -> URL {
        let fileManager = FileManager.default
        func usable(_ url: URL) -> Bool { fileManager.isExecutableFile(atPath: url.path) }

        if let explicit = ProcessInfo.processInfo.environment["LAYOUTD_BINARY"], !explicit.isEmpty {
            let url = URL(fileURLWithPath: explicit)
            guard usable(url) else { throw TestFailure("$LAYOUTD_BINARY=\(explicit) is not an executable file") }
            return url
        }
        var candidates: [URL] = []
        if let executable = try? fileManager.destinationOfSymbolicLink(atPath: "/proc/self/exe") {
            candidates.append(URL(fileURLWithPath: executable).deletingLastPathComponent())
        }
        if let executable = Bundle.main.executableURL {
            candidates.append(executable.deletingLastPathComponent())
        }
        candidates.append(URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent())
        // The test bundle may be a directory (…/layoutdPackageTests.xctest/Contents/MacOS/…).
        for directory in candidates {
            var current = directory
            for _ in 0..<4 {
                let url = current.appendingPathComponent("layoutd")
                if usable(url) { return url }
                current = current.deletingLastPathComponent()
            }
        }
        let root = packageRoot
        let buildFolders = ((try? fileManager.contentsOfDirectory(atPath: root.path)) ?? [])
            .filter { $0.hasPrefix(".build") }
            .map { root.appendingPathComponent($0).appendingPathComponent("debug").appendingPathComponent("layoutd") }
            .filter(usable)
            .sorted { modificationDate($0) > modificationDate($1) }
        if let newest = buildFolders.first { return newest }
        throw TestFailure("layoutd binary not found: run `swift build` first, or set LAYOUTD_BINARY")
    }

    private static func modificationDate(_ url: URL) -> Date {
        ((try? FileManager.default.attributesOfItem(atPath: url.path))?[.modificationDate] as? Date) ?? .distantPast
    }

    struct Result {
        var status: Int32
        var stdout: String
        var stderr: String
    }

    /// Runs `layoutd arguments…` to completion (at most `timeout` seconds), with `input` on its
    /// standard input (nothing when nil).
    static func run(_ arguments: [String], environment: [String: String]? = nil, input: [UInt8]? = nil,
                    timeout: Double = 20) throws -> Result {
        let process = Process()
        process.executableURL = try locate()
        process.arguments = arguments
        if let environment { process.environment = environment }
        let out = Pipe()
        let err = Pipe()
        let outCollector = OutputCollector()
        let errCollector = OutputCollector()
        out.fileHandleForReading.readabilityHandler = { outCollector.append($0.availableData) }
        err.fileHandleForReading.readabilityHandler = { errCollector.append($0.availableData) }
        process.standardOutput = out
        process.standardError = err
        let inputPipe = input == nil ? nil : Pipe()
        if let inputPipe {
            process.standardInput = inputPipe
        } else {
            process.standardInput = FileHandle.nullDevice
        }
        try process.run()
        if let input, let inputPipe {
            // From another thread: a large input must not block us while the child fills its pipes.
            let writer = inputPipe.fileHandleForWriting
            Thread.detachNewThread {
                try? writer.write(contentsOf: Data(input))
                try? writer.close()
            }
        }
        let exit = ChildExit(process)
        if !exit.wait(timeout: timeout) {
            exit.kill()
            throw TestFailure("layoutd \(arguments.joined(separator: " ")) did not finish within \(timeout) s")
        }
        // The readability handlers catch the last bytes (up to the end of each pipe); what they
        // have not read when given up on is read below.
        _ = eventually(timeout: 1) { outCollector.ended && errCollector.ended }
        out.fileHandleForReading.readabilityHandler = nil
        err.fileHandleForReading.readabilityHandler = nil
        outCollector.append(out.fileHandleForReading.readDataToEndOfFile())
        errCollector.append(err.fileHandleForReading.readDataToEndOfFile())
        return Result(status: exit.shellStatus, stdout: outCollector.text, stderr: errCollector.text)
    }
}

/// A running `layoutd serve`, started on a free port; killed when dropped if still running.
final class Daemon {
    let process = Process()
    private lazy var exit = ChildExit(process)
    private let errors = OutputCollector()
    private let errorPipe = Pipe()
    private(set) var port = 0

    /// Starts `layoutd serve --port 0 --threads 2 <extra>` and waits for its "listening" line.
    /// `shell`: shell commands run first, in a `/bin/sh` that then execs layoutd (`ulimit -n 64`).
    /// `logFile`: the daemon logs there (`--log-file`, given in `extra`): the line is looked for in it;
    /// `logUnread`: the log is not to be read (a pipe nobody reads): `port` (not 0) is polled instead.
    init(_ extra: [String] = [], port: Int = 0, timeout: Double = 20, shell: String? = nil, logFile: String? = nil,
         logUnread: Bool = false) throws {
        let binary = try LayoutdBinary.locate()
        let arguments = ["serve", "--port", String(port), "--threads", "2"] + extra
        if let shell {
            process.executableURL = URL(fileURLWithPath: "/bin/sh")
            process.arguments = ["-c", "\(shell); exec \"$0\" \"$@\"", binary.path] + arguments
        } else {
            process.executableURL = binary
            process.arguments = arguments
        }
        var environment = ProcessInfo.processInfo.environment
        environment["LAYOUTD_CONFIG"] = nil
        process.environment = environment
        let collector = errors
        errorPipe.fileHandleForReading.readabilityHandler = { collector.append($0.availableData) }
        process.standardError = errorPipe
        process.standardOutput = FileHandle.nullDevice
        process.standardInput = FileHandle.nullDevice
        try process.run()

        let errors = self.errors, exit = self.exit
        let announced = eventually(timeout: timeout, pollEvery: 0.01, {
            if logUnread { return (try? RawHTTPConnection(port: port, timeoutSeconds: 1)).map { _ in port } }
            return Daemon.announcedPort(in: logFile.map { (try? String(contentsOfFile: $0, encoding: .utf8)) ?? "" } ?? errors.text)
        },
                                   satisfies: { $0 != nil || exit.hasExited })
        if let announced {
            self.port = announced
            return
        }
        let log = errors.text
        stop()
        throw TestFailure("layoutd did not announce its port; stderr:\n\(log)")
    }

    /// The port in "layoutd listening on http://HOST:PORT", as a text line or a JSON line's message.
    static func announcedPort(in text: String) -> Int? {
        guard let range = text.range(of: "layoutd listening on http://") else { return nil }
        let rest = text[range.upperBound...]
        guard let lineEnd = rest.firstIndex(where: { $0 == "\n" || $0 == "\"" }) else { return nil }
        let address = rest[..<lineEnd]
        guard let colon = address.lastIndex(of: ":") else { return nil }
        return Int(address[address.index(after: colon)...])
    }

    var stderr: String { errors.text }
    var isRunning: Bool { !exit.hasExited }

    func signal(_ number: Int32) {
        kill(process.processIdentifier, number)
    }

    /// Waits for the process to end; returns its exit status, or nil if still running at the deadline.
    func waitForExit(timeout: Double) -> Int32? {
        exit.wait(timeout: timeout) ? exit.shellStatus : nil
    }

    /// Kills the daemon if it still runs.
    func stop() {
        exit.kill()
        errorPipe.fileHandleForReading.readabilityHandler = nil
    }

    deinit { stop() }

    /// A new connection to the daemon.
    func connect(timeoutSeconds: Double = 10) throws -> RawHTTPConnection {
        try RawHTTPConnection(port: port, timeoutSeconds: timeoutSeconds)
    }
}
