import Foundation
import Testing

/// `layoutd keys new|list|revoke` on keys files in a temporary directory (docs/operations.md
/// "API keys").
@Suite("layoutd keys")
struct KeysCommandTests {
    /// SHA-256 of `text` in hex, by coreutils' sha256sum: a second implementation to hold the
    /// daemon's own to.
    static func sha256(_ text: String) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/sha256sum")
        let input = Pipe(), output = Pipe()
        process.standardInput = input
        process.standardOutput = output
        try process.run()
        input.fileHandleForWriting.write(Data(text.utf8))
        try input.fileHandleForWriting.close()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return String(String(decoding: data, as: UTF8.self).prefix(64))
    }

    static func mode(_ path: String) throws -> Int {
        try #require(try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int)
    }

    static func text(_ path: String) throws -> String {
        String(decoding: try Data(contentsOf: URL(fileURLWithPath: path)), as: UTF8.self)
    }

    /// Runs `keys new` and returns the key it printed (the last line of standard output).
    static func newKey(_ arguments: [String]) throws -> String {
        let r = try LayoutdBinary.run(["keys", "new"] + arguments)
        #expect(r.status == 0, "\(r.stderr)")
        return try #require(r.stdout.split(separator: "\n").last.map(String.init))
    }

    @Test("new prints a key once, as the last line of stdout, and appends only its SHA-256 to a file of mode 0600")
    func newAppendsTheHash() throws {
        let dir = try TemporaryDirectory()
        let file = dir.url.appendingPathComponent("keys").path
        let r = try LayoutdBinary.run(["keys", "new", "ci", "--file", file, "--tenant", "acme", "--rate", "5", "--max-sessions", "10"])
        #expect(r.status == 0, "\(r.stderr)")
        let key = try #require(r.stdout.split(separator: "\n").last.map(String.init))
        #expect(key.hasPrefix("lk_") && key.utf8.count == 46)
        #expect(r.stderr.contains("ci") && !r.stderr.contains(key))
        #expect(try Self.mode(file) == 0o600)
        let second = try Self.newKey(["dash", "--file", file, "--read-only", "--metrics"])
        #expect(second != key)

        let text = try Self.text(file)
        #expect(!text.contains(key) && !text.contains(second) && !text.contains(key.dropFirst(3)))
        #expect(text == """
            ci tenant=acme sha256=\(try Self.sha256(key)) max-sessions=10 rate=5
            dash tenant=dash sha256=\(try Self.sha256(second)) read-only metrics

            """)
    }

    @Test("new warns about a file others may read, and completes a last line without its line feed")
    func newOnAnExistingFile() throws {
        let dir = try TemporaryDirectory()
        let file = try dir.write("keys", Array("# ours\nold tenant=t sha256=\(String(repeating: "0", count: 64))".utf8))
        chmod(file, 0o644)
        let r = try LayoutdBinary.run(["keys", "new", "fresh", "--file", file])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stderr.contains("warning") && r.stderr.contains("chmod 600"))
        let lines = try Self.text(file).split(separator: "\n", omittingEmptySubsequences: false)
        #expect(lines.count == 4 && lines[1].hasPrefix("old ") && lines[2].hasPrefix("fresh tenant=fresh sha256=") && lines[3].isEmpty)
    }

    @Test("list shows names, tenants, flags and limits, never a hash")
    func listHidesHashes() throws {
        let dir = try TemporaryDirectory()
        let file = dir.url.appendingPathComponent("keys").path
        _ = try Self.newKey(["ci", "--file", file, "--tenant", "acme", "--rate", "0.5"])
        _ = try Self.newKey(["viewer", "--file", file, "--tenant", "acme", "--read-only", "--max-sessions", "3"])
        let r = try LayoutdBinary.run(["keys", "list", "--file", file])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stdout == "ci tenant=acme rate=0.5\nviewer tenant=acme read-only max-sessions=3\n")
        #expect(!r.stdout.contains("sha256"))
    }

    @Test("revoke removes that key's line and keeps every other line verbatim; an absent name exits 1")
    func revokeRemovesOneLine() throws {
        let dir = try TemporaryDirectory()
        let file = dir.url.appendingPathComponent("keys").path
        _ = try Self.newKey(["a", "--file", file])
        _ = try Self.newKey(["b", "--file", file])
        let before = try Self.text(file)
        let lines = before.split(separator: "\n")
        // An operator's comment and spacing, which a rewrite must keep.
        let edited = "# team keys\n\(lines[0])\n\n  \(lines[1])   \n# end"
        _ = try dir.write("keys", Array(edited.utf8))

        let r = try LayoutdBinary.run(["keys", "revoke", "b", "--file", file])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(try Self.text(file) == "# team keys\n\(lines[0])\n\n# end")
        #expect(try Self.mode(file) == 0o600)
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.url.path) == ["keys"], "no temporary file left")

        let absent = try LayoutdBinary.run(["keys", "revoke", "b", "--file", file])
        #expect(absent.status == 1 && absent.stderr.contains("no key named 'b'"))
    }

    @Test("a name already in the file, or a bad value, exits 64 and leaves the file as it was")
    func refusals() throws {
        let dir = try TemporaryDirectory()
        let file = dir.url.appendingPathComponent("keys").path
        _ = try Self.newKey(["ci", "--file", file])
        let before = try Self.text(file)
        let duplicate = try LayoutdBinary.run(["keys", "new", "ci", "--file", file, "--tenant", "other"])
        #expect(duplicate.status == 64 && duplicate.stderr.contains("\(file):1: a key named 'ci' is already there"))
        #expect(duplicate.stdout.isEmpty)
        for (arguments, message) in [(["bad/name"], "NAME"), (["x", "--tenant", "a.b"], "--tenant"),
                                     (["x", "--rate", "0"], "--rate"), (["x", "--max-sessions", "many"], "--max-sessions"),
                                     (["dotted.name"], "NAME is also the tenant")] {
            let r = try LayoutdBinary.run(["keys", "new"] + arguments + ["--file", file])
            #expect(r.status == 64 && r.stderr.contains(message), "\(arguments): \(r.status) \(r.stderr)")
            #expect(r.stdout.isEmpty)
        }
        #expect(try Self.text(file) == before)
    }

    @Test("every subcommand exits 64 on a malformed file, naming FILE:LINE, and new writes nothing to it")
    func malformedFile() throws {
        let dir = try TemporaryDirectory()
        let text = "# keys\nok tenant=t sha256=\(String(repeating: "a", count: 64))\nci tenant=t sha256=\(String(repeating: "b", count: 64)) rat=5\n"
        let file = try dir.write("keys", Array(text.utf8))
        for arguments in [["new", "x"], ["list"], ["revoke", "ok"]] {
            let r = try LayoutdBinary.run(["keys"] + arguments + ["--file", file])
            #expect(r.status == 64, "\(arguments): \(r.status) \(r.stderr)")
            #expect(r.stderr.contains("\(file):3: unknown field 'rat=5'"), "\(arguments): \(r.stderr)")
            #expect(r.stdout.isEmpty)
        }
        #expect(try Self.text(file) == text)
    }
}
