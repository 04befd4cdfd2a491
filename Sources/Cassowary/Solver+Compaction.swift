// Giving back memory a solver holds but does not use.

extension Solver {
    /// Reallocates every array at its length and drops the scratch buffers (they grow again when
    /// an operation needs them). Arrays grow by doubling while constraints are added, so after a
    /// build a quarter to a half of what the tableau holds is spare capacity; a session that keeps
    /// its solver between requests should not keep that too. Values and the tableau are unchanged.
    ///
    /// O(cells): meant after a build or a large edit, not after every small one.
    public mutating func compact() {
        tableau.compact()
        objectives.compact()
        constraints.records = constraints.records.exactlySized()
        cache.compact()
        simplex.compact()
        // Scratch buffers and plans are rebuilt on demand; keeping them would keep their peak.
        plans.list = []
        scratch = Scratch()
    }
}

extension Tableau {
    mutating func compact() {
        for i in slots.indices where slots[i].row.cells.capacity > slots[i].row.cells.count {
            slots[i].row.cells = slots[i].row.cells.exactlySized()
        }
        for i in slots.indices { slots[i].column.compact() }
        slots = slots.exactlySized()
        status = status.exactlySized()
        owner = owner.exactlySized()
        stampOrder = stampOrder.exactlySized()
    }
}

extension ObjectiveLevels {
    mutating func compact() {
        for i in rows.indices {
            rows[i].sparse.cells = rows[i].sparse.cells.exactlySized()
            rows[i].dense = rows[i].dense.exactlySized()
        }
        keys = keys.exactlySized()
        rows = rows.exactlySized()
    }
}

extension ValueCache {
    mutating func compact() {
        values = values.exactlySized()
        dirty = dirty.exactlySized()
        isDirty = isDirty.exactlySized()
        pendingStamps = pendingStamps.exactlySized()
    }
}

extension SimplexQueues {
    mutating func compact() {
        candidates = candidates.exactlySized()
        isCandidate = isCandidate.exactlySized()
        infeasible.items = infeasible.items.exactlySized()
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
