@testable import Access
import Primitives
import Testing

@Suite("The keys file and the keys")
struct KeyFileTests {
    static let hashA = String(repeating: "ab", count: 32)
    static let hashB = String(repeating: "cd", count: 32)

    /// The error `text` gives, or nil when it parses.
    static func error(_ text: String) -> KeyFileError? {
        do throws(KeyFileError) {
            _ = try KeyFile.parse(text, path: "keys.txt")
            return nil
        } catch {
            return error
        }
    }

    @Test("a file with comments, blank lines, fields in any order, flags and limits gives its records")
    func parsesRecords() throws {
        let text = """
            # the CI and the dashboard
            ci tenant=acme sha256=\(Self.hashA) rate=5 max-sessions=10

              dash.board_1  read-only  sha256=\(Self.hashB.uppercased())\tmetrics tenant=acme-2 rate=0.25
            """
        let records = try KeyFile.parse(text + "\n", path: "keys.txt")
        #expect(records.count == 2)
        #expect(records[0] == APIKeyRecord(name: "ci", tenant: "acme", digest: [UInt8](repeating: 0xab, count: 32),
                                           maxSessions: 10, rate: 5))
        #expect(records[1] == APIKeyRecord(name: "dash.board_1", tenant: "acme-2", digest: [UInt8](repeating: 0xcd, count: 32),
                                           readOnly: true, metrics: true, rate: 0.25))
        #expect(try KeyFile.parse("", path: "k").isEmpty)
    }

    @Test("line(for:) writes a line that parses back to the same record")
    func lineRoundTrips() throws {
        let records = [
            APIKeyRecord(name: "a", tenant: "t", digest: APIKeys.digest(of: "x")),
            APIKeyRecord(name: "b.c", tenant: "t_2", digest: APIKeys.digest(of: "y"), readOnly: true, metrics: true,
                         maxSessions: 1_000_000_000, rate: 0.001),
            APIKeyRecord(name: "d", tenant: "t", digest: APIKeys.digest(of: "z"), rate: 0.00001),
            APIKeyRecord(name: "e", tenant: "t", digest: APIKeys.digest(of: "w"), rate: 1_000_000),
        ]
        let text = records.map(KeyFile.line(for:)).joined(separator: "\n")
        #expect(try KeyFile.parse(text, path: "k") == records)
        #expect(KeyFile.line(for: records[1]).hasPrefix("b.c tenant=t_2 sha256=\(Hex.encode(APIKeys.digest(of: "y"))) read-only metrics"))
    }

    @Test("each kind of error names its line and what is wrong, and only the first is reported")
    func errorsNameTheirLine() {
        let good = "ok tenant=t sha256=\(Self.hashA)"
        let cases: [(line: String, message: String)] = [
            ("x tenant=t sha256=\(Self.hashB) rat=5", "unknown field 'rat=5'"),
            ("x tenant=t sha256=\(Self.hashB) readonly", "unknown field 'readonly'"),
            ("x tenant=t sha256=\(Self.hashB) read-only=yes", "unknown field 'read-only=yes'"),
            ("x sha256=\(Self.hashB)", "missing tenant="),
            ("x tenant=t", "missing sha256="),
            ("x tenant=t sha256=abc", "sha256 must be 64 hexadecimal digits"),
            ("x tenant=t sha256=\(String(repeating: "g", count: 64))", "sha256 must be 64 hexadecimal digits"),
            ("x tenant=a/b sha256=\(Self.hashB)", "tenant 'a/b' may hold only"),
            ("x tenant= sha256=\(Self.hashB)", "a tenant is 1 to 64 characters"),
            ("x tenant=t tenant=u sha256=\(Self.hashB)", "field 'tenant' given twice"),
            ("bad/name tenant=t sha256=\(Self.hashB)", "name 'bad/name' may hold only"),
            ("\(String(repeating: "n", count: 65)) tenant=t sha256=\(Self.hashB)", "a name is 1 to 64 characters"),
            ("x tenant=t sha256=\(Self.hashB) max-sessions=0", "max-sessions must be a whole number"),
            ("x tenant=t sha256=\(Self.hashB) max-sessions=1000000001", "max-sessions must be a whole number"),
            ("x tenant=t sha256=\(Self.hashB) max-sessions=2.5", "max-sessions must be a whole number"),
            ("x tenant=t sha256=\(Self.hashB) rate=0", "rate must be a number"),
            ("x tenant=t sha256=\(Self.hashB) rate=-1", "rate must be a number"),
            ("x tenant=t sha256=\(Self.hashB) rate=1000001", "rate must be a number"),
            ("x tenant=t sha256=\(Self.hashB) rate=inf", "rate must be a number"),
            ("x tenant=t sha256=\(Self.hashB) rate=0x10", "rate must be a number"),
            ("ok tenant=u sha256=\(Self.hashB)", "duplicate name 'ok' (also on line 2)"),
            ("x tenant=u sha256=\(Self.hashA)", "duplicate sha256: the same key as 'ok' on line 2"),
        ]
        for c in cases {
            // A comment, the good line, the bad one (line 3), then another bad one that must not be reported.
            let text = "# keys\n\(good)\n\(c.line)\nalso bad\n"
            let error = Self.error(text)
            #expect(error?.line == 3, "\(c.line)")
            #expect(error?.message.hasPrefix(c.message) == true, "\(c.line): \(String(describing: error))")
            #expect(error?.description.hasPrefix("keys.txt:3: ") == true)
        }
    }

    @Test("a key pasted into the file is never quoted in an error (errors reach the daemon's log)")
    func errorsNeverQuoteAKey() {
        let key = APIKeys.generate()
        for text in ["\(key)", "ci tenant=t sha256=\(key)", "ci tenant=t \(key)", "ci tenant=\(key) sha256=\(Self.hashA)",
                     "ci tenant=t sha256=\(Self.hashA) rate=\(key)"] {
            let error = Self.error(text)
            #expect(error?.line == 1, "\(text)")
            #expect(error.map { !$0.description.contains(key) && !$0.description.contains(key.dropFirst(3)) } == true)
        }
    }

    @Test("a file that is not UTF-8 names its first bad line; a missing file says it cannot be read")
    func unreadableFiles() throws {
        let directory = try TemporaryFolder()
        let path = directory.file("keys")
        try directory.write("keys", Array("ok tenant=t sha256=\(Self.hashA)\n# caf".utf8) + [0xe9] + Array("\n".utf8))
        #expect(throws: KeyFileError(path: path, line: 2, message: "not UTF-8 text")) { try KeyFile.load(path: path) }
        let missing = directory.file("absent")
        #expect(throws: KeyFileError(path: missing, line: 0, message: "cannot be read: No such file or directory")) {
            try KeyFile.load(path: missing)
        }
        #expect(KeyFileError(path: missing, line: 0, message: "m").description == "\(missing): m")
    }

    @Test("generated keys are lk_ and 43 base64url characters of 32 bytes, each different, hashed with SHA-256")
    func generatedKeys() throws {
        let keys = (0..<50).map { _ in APIKeys.generate() }
        #expect(Set(keys).count == 50)
        for key in keys {
            #expect(key.hasPrefix("lk_") && key.utf8.count == 46)
            #expect(try #require(Base64URL.decode(String(key.dropFirst(3)))).count == 32)
            #expect(APIKeys.digest(of: key) == SHA256.hash(Array(key.utf8)))
        }
        // 50 keys of 32 random bytes: every bit position is set in some key and clear in another.
        let decoded = keys.map { Base64URL.decode(String($0.dropFirst(3)))! }
        let ored = decoded.reduce([UInt8](repeating: 0, count: 32)) { zip($0, $1).map { $0 | $1 } }
        let anded = decoded.reduce([UInt8](repeating: 0xff, count: 32)) { zip($0, $1).map { $0 & $1 } }
        #expect(ored == [UInt8](repeating: 0xff, count: 32) && anded == [UInt8](repeating: 0, count: 32))
    }
}
