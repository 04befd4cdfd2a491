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

    /// The key a tenant's session `id` is registered and stored under: `tenant/id`. Tenants never
    /// contain `/` (the keys file refuses it) and valid ids never do, so two tenants' keys cannot
    /// meet, and a key's visible part is whatever follows its first `/`. Without access control
    /// (`tenant` nil) the key is the id itself, as stored before tenants existed.
    static func key(_ id: String, tenant: String?) -> String {
        guard let tenant else { return id }
        return tenant + "/" + id
    }

    /// The id a client knows for the session stored under `key` (see `key(_:tenant:)`): what
    /// answers, problem details and event data show. Never the tenant: a tenant's name is the
    /// operator's, not the client's.
    static func visible(_ key: String) -> String {
        guard let slash = key.utf8.firstIndex(of: UInt8(ascii: "/")) else { return key }
        return String(key[key.utf8.index(after: slash)...])
    }

    /// The tenant part of `key` (nil: a session of no tenant).
    static func tenant(of key: String) -> Substring? {
        guard let slash = key.utf8.firstIndex(of: UInt8(ascii: "/")) else { return nil }
        return key[..<slash]
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
