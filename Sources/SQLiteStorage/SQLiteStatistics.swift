/// What a SQLite store has done since it opened.
public struct SQLiteStatistics: Equatable, Sendable {
    /// Writes acknowledged (each create, patch, snapshot, delete…).
    public var writes = 0
    /// Transactions committed (group commit: one per batch of writes): with `always`, each is one
    /// fsync of the log shared by its writes.
    public var commits = 0
    /// Explicit syncs: commits with `always`, the once-a-second fsyncs with `everysec`.
    public var syncs = 0
    /// The most writes one commit carried.
    public var largestBatch = 0
    /// Writes answered with an error inside a committed batch (fenced off, or failed alone).
    public var refusedWrites = 0
    /// Batches rolled back whole (COMMIT failed, an I/O error): every write in them failed.
    public var failedCommits = 0
}
