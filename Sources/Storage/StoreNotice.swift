/// What a shared store tells every process using it about writes (issue 22: several nodes on one
/// PostgreSQL). A node holds sessions in memory; a notice tells it that its copy may be behind.
///
/// Delivery is at least once per write while the store's listening connection is up, in each
/// session's revision order, possibly coalesced (a notice of revision R stands for every revision
/// up to R) and including the process's own writes. When notices may have been lost (the listening
/// connection dropped and came back), the store sends `.lost`: the node must then treat every copy
/// it holds as possibly stale.
public enum StoreNotice: Equatable, Sendable {
    /// Session `id` of `generation` was created, replaced or patched up to `revision`. `patch`:
    /// the merge patch that made `revision` from `revision - 1`, when the write was a PATCH and the
    /// store carries it (PostgreSQL: when it fits a notification). A node applies it to its copy
    /// without reading the store. `writeID`: the write id of `revision` (`WriteChain`), when the
    /// store carries it; a node whose copy reached `revision` with another id holds a revision the
    /// store lost, and is behind.
    case changed(id: String, generation: UInt64, revision: Int, writeID: UInt64? = nil, patch: [UInt8]? = nil)
    /// Session `id` of `generation` was deleted.
    case deleted(id: String, generation: UInt64)
    /// Notices may have been missed since the last one.
    case lost
}
