/// What a shared store said of one session since this node last caught up with it (issue 22:
/// several nodes on one store). Kept under the session's `heard` lock, never its state's: the
/// store's listening thread writes it and must not wait for a solve.
struct StoreHint: Sendable {
    /// The session's generation: fixed for a `Session` object (a re-created id is a new object).
    let generation: UInt64
    /// The highest revision a notice named for this generation (this node's own writes included).
    var revision = 0
    /// The write id the latest notice of `revision` named (`WriteChain`), when it named one.
    var writeID: UInt64?
    /// A notice named another generation of the id, or its delete: this copy is dead.
    var otherGeneration = false
    /// `LayoutAPI.noticeEpoch` when the session was last read from or checked against the store.
    var epoch: Int

    init(generation: UInt64, epoch: Int = 0) {
        self.generation = generation
        self.epoch = epoch
    }
}
