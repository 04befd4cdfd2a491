// Giving back memory a solver holds but does not use.

extension Solver {
    /// Reallocates every array at its length and drops the scratch buffers (they grow again when
    /// an operation needs them). Arrays grow by doubling while constraints are added, so after a
    /// build a quarter to a half of what the tableau holds is spare capacity; a session that keeps
    /// its solver between requests should not keep that too. Values and the tableau are unchanged.
    ///
    /// O(cells): meant after a build or a large edit, not after every small one.
    public mutating func compact() {
        for i in tableau.slots.indices where tableau.slots[i].row.cells.capacity > tableau.slots[i].row.cells.count {
            tableau.slots[i].row.cells = tableau.slots[i].row.cells.exactlySized()
        }
        for i in tableau.slots.indices { tableau.slots[i].column.compact() }
        for i in objectives.rows.indices {
            objectives.rows[i].sparse.cells = objectives.rows[i].sparse.cells.exactlySized()
            objectives.rows[i].dense = objectives.rows[i].dense.exactlySized()
        }
        constraints.records = constraints.records.exactlySized()
        tableau.slots = tableau.slots.exactlySized()
        tableau.status = tableau.status.exactlySized()
        tableau.owner = tableau.owner.exactlySized()
        tableau.stampOrder = tableau.stampOrder.exactlySized()
        cache.values = cache.values.exactlySized()
        cache.isDirty = cache.isDirty.exactlySized()
        cache.pendingStamps = cache.pendingStamps.exactlySized()
        simplex.isCandidate = simplex.isCandidate.exactlySized()
        objectives.keys = objectives.keys.exactlySized()
        objectives.rows = objectives.rows.exactlySized()
        simplex.candidates = simplex.candidates.exactlySized()
        cache.dirty = cache.dirty.exactlySized()
        simplex.infeasible.items = simplex.infeasible.items.exactlySized()
        scratch.merge = []
        plans.list = []
        scratch.expansion = []
        scratch.touched = []
        scratch.inserted = []
        scratch.negative = []
        scratch.shifted = []
        scratch.removed = []
    }
}

extension Array {
    /// This array without spare capacity (itself when it has none).
    func exactlySized() -> [Element] {
        if capacity == count { return self }
        return [Element](unsafeUninitializedCapacity: count) { buffer, initialized in
            _ = buffer.initialize(from: self)
            initialized = count
        }
    }
}

extension Solver {
    /// Symbols and constraint slots created so far. Removing a constraint does not give its
    /// symbols or its slot back (numbers are never reused: they order every tie-break), so a
    /// long run of removals and additions grows these; a caller that keeps a solver for long can
    /// rebuild it when they outgrow what it holds (`liveConstraints`).
    var footprint: (symbols: Int, constraintSlots: Int) { (tableau.slots.count, constraints.records.count) }

    /// Constraints held now.
    var liveConstraints: Int { constraints.records.reduce(0) { $0 + ($1 == nil ? 0 : 1) } }
}
