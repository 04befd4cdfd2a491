/// Writes compact JSON (no whitespace) as UTF-8 bytes.
///
/// Use `write(_:)` for a `JSONValue` tree, or the low-level appenders to build a response
/// directly without making a tree. The appenders do not insert separators: the caller writes
/// `,` with `appendRaw(",")` and uses `appendKey` (which writes the `:`) for members.
///
/// Output is deterministic:
/// - object keys in their stored order;
/// - integral numbers with magnitude below 2^53 are written as integers (`100`, `-3`),
///   and negative zero as `0`;
/// - other finite numbers use Swift's shortest round-trip representation (`0.1`, `1e-07`,
///   `1.5e+300`), which parses back to the same `Double`;
/// - non-finite numbers (infinity, NaN), which JSON cannot represent, are written as `null`;
/// - strings escape `"`, `\` and control characters (`\n`, `\t`, `\r`, `\b`, `\f`, others
///   as `\u00XX`); everything else is written as raw UTF-8.
public struct JSONWriter {
    public var bytes: [UInt8]

    public init(capacity: Int = 256) {
        bytes = []
        bytes.reserveCapacity(capacity)
    }

    public static func serialize(_ v: JSONValue) -> [UInt8] {
        var w = JSONWriter()
        w.write(v)
        return w.bytes
    }

    public static func string(_ v: JSONValue) -> String {
        String(decoding: serialize(v), as: UTF8.self)
    }

    /// Indented JSON for people (CLI output): two spaces per level, `"key": value`,
    /// one member or element per line, empty containers as `{}` / `[]`. No trailing newline.
    public static func prettyString(_ v: JSONValue) -> String {
        var w = JSONWriter()
        w.writePretty(v, indent: 0)
        return String(decoding: w.bytes, as: UTF8.self)
    }

    public mutating func write(_ value: JSONValue) {
        switch value {
        case .null: appendNull()
        case .bool(let b): appendBool(b)
        case .number(let d): appendNumber(d)
        case .string(let s): appendString(s)
        case .array(let a):
            bytes.append(0x5B)  // [
            var first = true
            for element in a {
                if !first { bytes.append(0x2C) }
                first = false
                write(element)
            }
            bytes.append(0x5D)  // ]
        case .object(let o):
            bytes.append(0x7B)  // {
            let keys = o.keys
            let values = o.values
            for k in 0..<keys.count {
                if k > 0 { bytes.append(0x2C) }
                appendKey(keys[k])
                write(values[k])
            }
            bytes.append(0x7D)  // }
        }
    }

    public mutating func writePretty(_ value: JSONValue, indent: Int = 0) {
        switch value {
        case .array(let a) where !a.isEmpty:
            bytes.append(0x5B)
            for (k, element) in a.enumerated() {
                if k > 0 { bytes.append(0x2C) }
                newline(indent + 1)
                writePretty(element, indent: indent + 1)
            }
            newline(indent)
            bytes.append(0x5D)
        case .object(let o) where !o.isEmpty:
            bytes.append(0x7B)
            for (k, (key, member)) in o.entries.enumerated() {
                if k > 0 { bytes.append(0x2C) }
                newline(indent + 1)
                appendKey(key)
                bytes.append(0x20)
                writePretty(member, indent: indent + 1)
            }
            newline(indent)
            bytes.append(0x7D)
        default:
            write(value)
        }
    }

    private mutating func newline(_ level: Int) {
        bytes.append(0x0A)
        for _ in 0..<(2 * level) { bytes.append(0x20) }
    }

    // MARK: Low-level appenders

    /// Appends the text as is (no quoting or escaping): punctuation such as `,` `{` `}` or
    /// pre-made JSON.
    @inline(__always)
    public mutating func appendRaw(_ s: StaticString) {
        if s.hasPointerRepresentation {
            bytes.append(contentsOf: UnsafeBufferPointer(start: s.utf8Start, count: s.utf8CodeUnitCount))
        } else {
            s.withUTF8Buffer { bytes.append(contentsOf: $0) }
        }
    }

    public mutating func appendNull() { appendRaw("null") }

    public mutating func appendBool(_ b: Bool) {
        if b { appendRaw("true") } else { appendRaw("false") }
    }

    /// Appends a quoted `"key":`.
    public mutating func appendKey(_ k: String) {
        appendString(k)
        bytes.append(0x3A)
    }

    /// Appends the string quoted and escaped.
    public mutating func appendString(_ s: String) {
        bytes.append(0x22)
        var s = s
        s.withUTF8 { appendEscaped($0) }
        bytes.append(0x22)
    }

    private mutating func appendEscaped(_ buf: UnsafeBufferPointer<UInt8>) {
        var runStart = 0
        var k = 0
        let count = buf.count
        while k < count {
            let c = buf[k]
            if c >= 0x20 && c != 0x22 && c != 0x5C {
                k += 1
                continue
            }
            if k > runStart {
                bytes.append(contentsOf: UnsafeBufferPointer(rebasing: buf[runStart..<k]))
            }
            bytes.append(0x5C)  // backslash
            switch c {
            case 0x22: bytes.append(0x22)
            case 0x5C: bytes.append(0x5C)
            case 0x0A: bytes.append(0x6E)  // n
            case 0x09: bytes.append(0x74)  // t
            case 0x0D: bytes.append(0x72)  // r
            case 0x08: bytes.append(0x62)  // b
            case 0x0C: bytes.append(0x66)  // f
            default:
                bytes.append(0x75)  // u
                bytes.append(0x30)
                bytes.append(0x30)
                bytes.append(hexDigit(c >> 4))
                bytes.append(hexDigit(c & 0xF))
            }
            k += 1
            runStart = k
        }
        if count > runStart {
            bytes.append(contentsOf: UnsafeBufferPointer(rebasing: buf[runStart..<count]))
        }
    }

    @inline(__always)
    private func hexDigit(_ v: UInt8) -> UInt8 { v < 10 ? 0x30 + v : 0x61 + v - 10 }

    /// Appends a number; `null` for infinity and NaN (see the type's documentation).
    public mutating func appendNumber(_ d: Double) {
        appendChunk(capacity: JSONChunk.maxNumberLength) { $0.number(d) }
    }

    /// Appends an integer in decimal.
    public mutating func appendInteger(_ v: Int64) {
        appendChunk(capacity: JSONChunk.maxNumberLength) { $0.integer(v) }
    }
}
