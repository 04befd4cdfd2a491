import Storage

/// The payloads the write statements send (`SQL` in PostgresSchema.swift), read back.
extension PostgresListener {
    /// A notification's payload as the writes make it: `c GENERATION REVISION WRITEID ID`
    /// (created, replaced or patched), `p GENERATION REVISION WRITEID HEXPATCH ID` (patched, with
    /// the merge patch) or `d GENERATION ID` (deleted). The id comes last: it may hold spaces.
    /// WRITEID is the revision's write id as a signed 64-bit decimal (PostgreSQL's bigint).
    static func decode(_ payload: String) -> StoreNotice? {
        let parts = payload.split(separator: " ", maxSplits: 4, omittingEmptySubsequences: false)
        switch parts.first {
        case "c" where parts.count == 5:
            guard let g = UInt64(parts[1]), let r = Int(parts[2]), let w = Int64(parts[3]) else { return nil }
            return .changed(id: String(parts[4]), generation: g, revision: r, writeID: UInt64(bitPattern: w))
        case "p" where parts.count == 5:
            let rest = parts[4].split(separator: " ", maxSplits: 1, omittingEmptySubsequences: false)
            guard let g = UInt64(parts[1]), let r = Int(parts[2]), let w = Int64(parts[3]), rest.count == 2,
                  let patch = Self.bytes(hex: rest[0]) else { return nil }
            return .changed(id: String(rest[1]), generation: g, revision: r, writeID: UInt64(bitPattern: w), patch: patch)
        case "d" where parts.count >= 3:
            let rest = payload.split(separator: " ", maxSplits: 2, omittingEmptySubsequences: false)
            guard let g = UInt64(rest[1]) else { return nil }
            return .deleted(id: String(rest[2]), generation: g)
        default:
            return nil
        }
    }

    /// The bytes of lowercase or uppercase hex digits; nil when they are not.
    static func bytes(hex: Substring) -> [UInt8]? {
        let digits = Array(hex.utf8)
        guard digits.count % 2 == 0 else { return nil }
        func value(_ c: UInt8) -> UInt8? {
            switch c {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): return c - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): return c - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): return c - UInt8(ascii: "A") + 10
            default: return nil
            }
        }
        var out: [UInt8] = []
        out.reserveCapacity(digits.count / 2)
        var i = 0
        while i < digits.count {
            guard let high = value(digits[i]), let low = value(digits[i + 1]) else { return nil }
            out.append(high << 4 | low)
            i += 2
        }
        return out
    }
}
