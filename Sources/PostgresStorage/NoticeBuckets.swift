/// Which notification channel tells of writes to a session (issue 28, "targeted notices").
///
/// One channel for every write made every node hear every write: with N nodes PostgreSQL sent
/// N − 1 notices per edit that nobody needed, and each node woke to read and drop them. Now each
/// session id falls in one of `count` buckets, a write notifies its bucket's channel
/// (`layoutd_sessions_B`), and a node `LISTEN`s only on the buckets of the sessions it holds a copy
/// of (`PostgresListener.follow`). The bucket is computed here, in Swift, and passed to the write
/// statements as a parameter: the node that listens and the node that writes must agree, and
/// PostgreSQL's own `hashtext()` is not something to mirror in Swift.
///
/// `count`: with many buckets, a node holding a few sessions hears few other writes; PostgreSQL
/// compares a notice's channel with each channel a listener listens on (a list), so a node holding
/// thousands of sessions (listening on most buckets) pays a comparison per bucket for each notice.
/// 1,024 keeps that under a few microseconds per notice.
public enum NoticeBuckets {
    public static let count = 1_024

    /// The bucket of `id`: FNV-1a (32 bits) of its UTF-8 bytes, modulo `count`. Stable across
    /// versions and platforms: every node of a cluster must compute the same one.
    public static func bucket(of id: String) -> Int {
        var hash: UInt32 = 2_166_136_261
        for byte in id.utf8 {
            hash ^= UInt32(byte)
            hash = hash &* 16_777_619
        }
        return Int(hash % UInt32(count))
    }

    /// The channel a write to a session of `bucket` is told on.
    public static func channel(_ bucket: Int) -> String { "layoutd_sessions_\(bucket)" }

    /// The channel a write to `id` is told on.
    public static func channel(of id: String) -> String { channel(bucket(of: id)) }
}
