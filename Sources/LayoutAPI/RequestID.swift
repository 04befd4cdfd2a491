import JSON
import Telemetry

/// `X-Request-Id`: the client's, when it is 1 to 200 visible ASCII characters (0x21-0x7E: no
/// space, no control character, nothing a log line or a header could be split on), else one made
/// here. Every answer carries it back, every problem body names it (`requestId`), and the access
/// log writes it, so that a user's report can be matched to a log line.
public enum RequestID {
    public static let header = "X-Request-Id"
    public static let maxLength = 200

    /// The id to answer `request` with.
    @inline(__always)
    public static func resolve(_ request: APIRequest) -> String {
        if let given = request.header(header), isValid(given) { return given }
        return generate()
    }

    public static func isValid(_ id: String) -> Bool {
        let utf8 = id.utf8
        return !utf8.isEmpty && utf8.count <= maxLength && utf8.allSatisfy { $0 >= 0x21 && $0 <= 0x7E }
    }

    /// 16 lowercase hex digits (64 bits) from the thread's own generator: no lock, no system call.
    public static func generate() -> String {
        var bits = ThreadSlot.next()
        return String(unsafeUninitializedCapacity: 16) { buffer in
            for i in stride(from: 15, through: 0, by: -1) {
                let nibble = UInt8(truncatingIfNeeded: bits & 0xF)
                // Arithmetic rather than a table: no global to initialise-check, no bounds check.
                buffer[i] = nibble < 10 ? 0x30 &+ nibble : 0x57 &+ nibble
                bits >>= 4
            }
            return 16
        }
    }

    /// `body` (a problem object) with `"requestId":"<id>"` as its last member.
    static func addToProblem(_ body: inout [UInt8], id: String) {
        guard body.last == UInt8(ascii: "}") else { return }
        body.removeLast()
        var w = JSONWriter(capacity: id.utf8.count + 16)
        if body.count > 1 { w.appendRaw(",") }
        w.appendRaw("\"requestId\":")
        w.appendString(id)
        w.appendRaw("}")
        body.append(contentsOf: w.bytes)
    }
}
