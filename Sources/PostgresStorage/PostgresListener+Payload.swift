import Primitives
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
                  let patch = Hex.decode(rest[0]) else { return nil }
            return .changed(id: String(rest[1]), generation: g, revision: r, writeID: UInt64(bitPattern: w), patch: patch)
        case "d" where parts.count >= 3:
            let rest = payload.split(separator: " ", maxSplits: 2, omittingEmptySubsequences: false)
            guard let g = UInt64(rest[1]) else { return nil }
            return .deleted(id: String(rest[2]), generation: g)
        default:
            return nil
        }
    }
}
