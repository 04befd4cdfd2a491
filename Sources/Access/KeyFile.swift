import Primitives
#if canImport(Glibc)
import Glibc
#endif

/// The keys file (docs/operations.md "API keys"): UTF-8 text, one key a line,
/// `NAME tenant=T sha256=HEX64 [read-only] [metrics] [max-sessions=N] [rate=R]`, fields after
/// NAME in any order, separated by spaces; `#` comment lines and blank lines ignored.
public enum KeyFile {
    public static let maxNameLength = 64
    public static let maxSessionsRange = 1...1_000_000_000
    public static let maxRate = 1_000_000.0

    /// The records of `text`; the first error, naming its line, when any line is wrong (the
    /// daemon refuses to start on it, so the operator fixes one line at a time, top down).
    public static func parse(_ text: String, path: String) throws(KeyFileError) -> [APIKeyRecord] {
        try numberedRecords(text, path: path).map(\.record)
    }

    /// `parse` of the file at `path`; unreadable or not UTF-8 is an error too.
    public static func load(path: String) throws(KeyFileError) -> [APIKeyRecord] {
        switch read(path: path) {
        case .failure(let e):
            throw KeyFileError(path: path, line: 0, message: "cannot be read: \(String(cString: strerror(e.code)))")
        case .success(let bytes):
            return try parse(decode(bytes, path: path), path: path)
        }
    }

    /// The line of `record` (without the line feed), as `keys new` appends it.
    public static func line(for record: APIKeyRecord) -> String {
        var fields = [record.name, "tenant=\(record.tenant)", "sha256=\(Hex.encode(record.digest))"]
        fields += describe(record)
        return fields.joined(separator: " ")
    }

    /// The flags and limits of `record` as fields (`read-only`, `metrics`, `max-sessions=N`, `rate=R`).
    public static func describe(_ record: APIKeyRecord) -> [String] {
        var fields: [String] = []
        if record.readOnly { fields.append("read-only") }
        if record.metrics { fields.append("metrics") }
        if let n = record.maxSessions { fields.append("max-sessions=\(n)") }
        if let r = record.rate { fields.append("rate=\(format(rate: r))") }
        return fields
    }

    // MARK: - Values

    /// Why `name` is not a key name, or nil when it is one.
    public static func problem(name: String) -> String? {
        if name.isEmpty || name.utf8.count > maxNameLength { return "a name is 1 to \(maxNameLength) characters" }
        // A key pasted where its name belongs would be shown by `keys list` and logged.
        if name.hasPrefix(APIKeys.prefix) { return "a name may not begin with '\(APIKeys.prefix)', the prefix of keys" }
        if !name.utf8.allSatisfy({ isWordByte($0) || $0 == UInt8(ascii: ".") }) {
            return "name '\(shown(name))' may hold only letters, digits, '.', '_' and '-'"
        }
        return nil
    }

    /// Why `tenant` is not a tenant, or nil when it is one. Never a `/` or `.`: the tenant is part
    /// of a stored session's identity.
    public static func problem(tenant: String) -> String? {
        if tenant.isEmpty || tenant.utf8.count > maxNameLength { return "a tenant is 1 to \(maxNameLength) characters" }
        // A key pasted here would become a metrics label.
        if tenant.hasPrefix(APIKeys.prefix) { return "a tenant may not begin with '\(APIKeys.prefix)', the prefix of keys" }
        if !tenant.utf8.allSatisfy(isWordByte) {
            return "tenant '\(shown(tenant))' may hold only letters, digits, '_' and '-'"
        }
        return nil
    }

    /// `text` as max-sessions (digits, 1 to 1 000 000 000), or the reason it is not one.
    public static func maxSessions(_ text: Substring) -> Result<Int, ValueProblem> {
        guard !text.isEmpty, text.utf8.count <= 10, text.utf8.allSatisfy(isDigit), let n = Int(text), maxSessionsRange.contains(n) else {
            return .failure(ValueProblem("max-sessions must be a whole number from 1 to 1000000000, not '\(shown(text))'"))
        }
        return .success(n)
    }

    /// `text` as a rate (a decimal number above 0 and at most 1 000 000), or the reason it is not one.
    public static func rate(_ text: Substring) -> Result<Double, ValueProblem> {
        // Decimal notation (and the exponent `line(for:)` may write for a tiny rate); not
        // Double's hexadecimal, `inf` or `nan`.
        let decimal = !text.isEmpty && text.utf8.allSatisfy { isDigit($0) || $0 == UInt8(ascii: ".") || $0 == UInt8(ascii: "e") || $0 == UInt8(ascii: "-") }
            && text.utf8.first.map(isDigit) == true
        guard decimal, let r = Double(text), r.isFinite, r > 0, r <= maxRate else {
            return .failure(ValueProblem("rate must be a number of requests a second above 0 and at most 1000000, not '\(shown(text))'"))
        }
        return .success(r)
    }

    public struct ValueProblem: Error, CustomStringConvertible {
        public let description: String
        init(_ text: String) { description = text }
    }

    static func format(rate: Double) -> String {
        rate == rate.rounded() ? String(Int(rate)) : String(rate)
    }

    // MARK: - Parsing

    /// The records of `text` with their line numbers (1-based), for `parse` and for the edits
    /// that must leave every other line as it was.
    static func numberedRecords(_ text: String, path: String) throws(KeyFileError) -> [(line: Int, record: APIKeyRecord)] {
        var records: [(line: Int, record: APIKeyRecord)] = []
        var lineOfName: [String: Int] = [:]
        var lineOfDigest: [[UInt8]: (Int, String)] = [:]
        for (index, raw) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let number = index + 1
            func fail(_ message: String) -> KeyFileError { KeyFileError(path: path, line: number, message: message) }
            let fields = raw.split(whereSeparator: { $0 == " " || $0 == "\t" || $0 == "\r" })
            guard let first = fields.first, !first.hasPrefix("#") else { continue }
            let record: APIKeyRecord
            do throws(ValueProblem) {
                record = try parseRecord(fields)
            } catch {
                throw fail(error.description)
            }
            if let earlier = lineOfName[record.name] {
                throw fail("duplicate name '\(record.name)' (also on line \(earlier))")
            }
            if let (earlier, name) = lineOfDigest[record.digest] {
                throw fail("duplicate sha256: the same key as '\(name)' on line \(earlier)")
            }
            lineOfName[record.name] = number
            lineOfDigest[record.digest] = (number, record.name)
            records.append((number, record))
        }
        return records
    }

    private static func parseRecord(_ fields: [Substring]) throws(ValueProblem) -> APIKeyRecord {
        let name = String(fields[0])
        if let problem = problem(name: name) { throw ValueProblem(problem) }
        var tenant: String?
        var digest: [UInt8]?
        var readOnly = false, metrics = false
        var maxSessions: Int?
        var rate: Double?
        var seen: Set<Substring> = []
        for field in fields.dropFirst() {
            let equals = field.firstIndex(of: "=")
            let key = equals.map { field[..<$0] } ?? field
            let value = equals.map { field[field.index(after: $0)...] } ?? ""
            guard ["tenant", "sha256", "read-only", "metrics", "max-sessions", "rate"].contains(key),
                  (equals == nil) == (key == "read-only" || key == "metrics") else {
                throw ValueProblem("unknown field '\(shown(field))'")
            }
            guard seen.insert(key).inserted else { throw ValueProblem("field '\(key)' given twice") }
            switch key {
            case "tenant":
                if let problem = problem(tenant: String(value)) { throw ValueProblem(problem) }
                tenant = String(value)
            case "sha256":
                // The value is not quoted: a key pasted here by mistake must not reach a log.
                guard value.utf8.count == 64, let bytes = Hex.decode(value) else {
                    throw ValueProblem("sha256 must be 64 hexadecimal digits (the SHA-256 of the key, never the key)")
                }
                digest = bytes
            case "read-only": readOnly = true
            case "metrics": metrics = true
            case "max-sessions":
                switch Self.maxSessions(value) {
                case .success(let n): maxSessions = n
                case .failure(let p): throw p
                }
            default:
                switch Self.rate(value) {
                case .success(let r): rate = r
                case .failure(let p): throw p
                }
            }
        }
        guard let tenant else { throw ValueProblem("missing tenant=") }
        guard let digest else { throw ValueProblem("missing sha256=") }
        return APIKeyRecord(name: name, tenant: tenant, digest: digest, readOnly: readOnly, metrics: metrics,
                            maxSessions: maxSessions, rate: rate)
    }

    /// `text` for an error message: cut to 64 characters, and never a key (anything holding the
    /// keys' prefix is left out), since the daemon logs these messages.
    static func shown<S: StringProtocol>(_ text: S) -> String {
        if text.contains(APIKeys.prefix) { return "<something like a key, not shown>" }
        return text.count > 64 ? String(text.prefix(64)) + "…" : String(text)
    }

    private static func isDigit(_ c: UInt8) -> Bool { c >= UInt8(ascii: "0") && c <= UInt8(ascii: "9") }

    private static func isWordByte(_ c: UInt8) -> Bool {
        isDigit(c) || (c >= UInt8(ascii: "a") && c <= UInt8(ascii: "z")) || (c >= UInt8(ascii: "A") && c <= UInt8(ascii: "Z"))
            || c == UInt8(ascii: "_") || c == UInt8(ascii: "-")
    }

    // MARK: - Reading

    /// An errno, as a `Result`'s failure.
    struct SystemError: Error {
        let code: Int32
    }

    /// The file's bytes, or errno.
    static func read(path: String) -> Result<[UInt8], SystemError> {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return .failure(SystemError(code: errno)) }
        defer { close(fd) }
        return readAll(fd)
    }

    /// Everything from the start of `fd` to its end, or errno.
    static func readAll(_ fd: Int32) -> Result<[UInt8], SystemError> {
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 16384)
        var offset: off_t = 0
        while true {
            let n = chunk.withUnsafeMutableBytes { pread(fd, $0.baseAddress, $0.count, offset) }
            if n < 0 {
                if errno == EINTR { continue }
                return .failure(SystemError(code: errno))
            }
            if n == 0 { return .success(bytes) }
            bytes += chunk[0..<n]
            offset += off_t(n)
        }
    }

    /// `bytes` as text; the first line that is not UTF-8 is an error naming it.
    static func decode(_ bytes: [UInt8], path: String) throws(KeyFileError) -> String {
        if let text = String(validating: bytes, as: UTF8.self) { return text }
        var number = 1
        for line in bytes.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false) {
            if String(validating: line, as: UTF8.self) == nil { break }
            number += 1
        }
        throw KeyFileError(path: path, line: number, message: "not UTF-8 text")
    }
}
