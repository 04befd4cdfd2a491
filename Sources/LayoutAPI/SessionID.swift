/// Session ids: the spec's id rules (1 to 128 ASCII letters, digits, `_`, `-`, `#`).
/// Server-chosen ids are 128 random bits as 32 lowercase hex digits.
enum SessionID {
    static let maxLength = 128

    static func isValid(_ id: String) -> Bool {
        let u = id.utf8
        guard !u.isEmpty && u.count <= maxLength else { return false }
        return u.allSatisfy { c in
            (c >= 0x61 && c <= 0x7A) || (c >= 0x41 && c <= 0x5A) || (c >= 0x30 && c <= 0x39)
                || c == UInt8(ascii: "_") || c == UInt8(ascii: "-") || c == UInt8(ascii: "#")
        }
    }

    /// 128 bits from the system's cryptographically secure generator, as 32 hex digits.
    static func random() -> String {
        var g = SystemRandomNumberGenerator()
        let a = g.next() as UInt64, b = g.next() as UInt64
        return hex(a) + hex(b)
    }

    private static func hex(_ v: UInt64) -> String {
        let s = String(v, radix: 16)
        return String(repeating: "0", count: 16 - s.count) + s
    }
}
