/// What a stored revision holds, named in 64 bits: its *write id*.
///
/// Revision numbers alone cannot fence writes between nodes: a store that loses an acknowledged
/// revision (PostgreSQL with `synchronous_commit = off`, killed after the answer left) hands the
/// same number to another node's different change, and a node still holding the lost revision
/// would pass a fence on the number and build on a document the store never had. So every write
/// also names the write id of the revision it builds on, and the store refuses one whose base is
/// not the stored one.
///
/// The id is a hash chain over the content, not a random number: each revision's id is the hash
/// of the previous id and the change that made it (the merge patch, or the whole canonical
/// document). Every node that applies the same changes in the same order computes the same id
/// without being told, so a node following a session through notices or stored patches knows the
/// id it must have reached, and two revisions with the same number and different content never
/// share one (but for a 64-bit hash collision).
///
/// The hash is FNV-1a over a kind byte, the previous id and the bytes, finished with SplitMix64's
/// mixer: cheap on the usual 40-byte patch, and the same on every node and platform (Swift's
/// `Hasher` is seeded per process).
public enum WriteChain {
    /// The id of a session's first revision (create).
    public static func created(_ document: [UInt8]) -> UInt64 { hash(kind: 0x63, after: 0, document) }

    /// The id of a revision made by replacing the whole document (PUT) after `base`.
    public static func replaced(after base: UInt64, _ document: [UInt8]) -> UInt64 { hash(kind: 0x64, after: base, document) }

    /// The id of a revision made by the merge patch `patch` (PATCH) after `base`.
    public static func patched(after base: UInt64, _ patch: [UInt8]) -> UInt64 { hash(kind: 0x70, after: base, patch) }

    private static func hash(kind: UInt8, after base: UInt64, _ bytes: [UInt8]) -> UInt64 {
        var h: UInt64 = 0xcbf2_9ce4_8422_2325
        let prime: UInt64 = 0x0000_0100_0000_01b3
        h = (h ^ UInt64(kind)) &* prime
        var b = base
        for _ in 0..<8 {
            h = (h ^ (b & 0xff)) &* prime
            b >>= 8
        }
        bytes.withUnsafeBufferPointer { buffer in
            for byte in buffer { h = (h ^ UInt64(byte)) &* prime }
        }
        // SplitMix64's finaliser: FNV's low bits mix poorly on their own.
        h = (h ^ (h >> 30)) &* 0xbf58_476d_1ce4_e5b9
        h = (h ^ (h >> 27)) &* 0x94d0_49bb_1331_11eb
        return h ^ (h >> 31)
    }
}
