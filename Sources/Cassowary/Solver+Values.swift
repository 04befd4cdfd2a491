// The external variables' values, kept in `ValueCache` and brought up to date lazily, in
// dependency (stamp) order, for the rows an operation changed.

extension Solver {
    /// Brings the external values up to date: the rows changed since the last call, then every
    /// row referencing one whose value moved, lowest stamp first (references point to older
    /// rows, so stamp order is a dependency order). Cost: the rows whose values change.
    public mutating func updateValues() {
        guard !cache.dirty.isEmpty else { return }
        growPendingStamps()
        // Rows that left the basis are 0 now, and reduced rows (stamp 0) depend on nothing: both
        // are settled first; their dependents are marked for the sweep.
        // `isDirty` means "listed in `cache.dirty`" (for `markDirty`'s de-duplication); the sweep
        // works from marks alone, so every listed symbol leaves the list here.
        var from = Int(tableau.nextStamp)
        for x in cache.dirty {
            let xi = Int(x)
            cache.isDirty[xi] = false
            // Only externals have values. A removal lists every row that held the marker,
            // restricted ones too; a restricted symbol given its row's constant here would keep
            // it after leaving the basis, and the sweep would add it into external rows.
            if tableau.slots[xi].kind != .external { continue }
            if tableau.slots[xi].isBasic && tableau.slots[xi].stamp > 0 {
                from = min(from, Int(tableau.slots[xi].stamp) - 1)
                markPending(Int(tableau.slots[xi].stamp) - 1)
                continue
            }
            let v = tableau.slots[xi].isBasic ? tableau.slots[xi].row.constant : 0
            if cache.values[xi] != v {
                cache.values[xi] = v
                cache.movedLog.append(x)
                for y in tableau.slots[xi].column where tableau.slots[Int(y)].stamp > 0 {
                    from = min(from, Int(tableau.slots[Int(y)].stamp) - 1)
                    markPending(Int(tableau.slots[Int(y)].stamp) - 1)
                }
            }
        }
        cache.dirty.removeAll(keepingCapacity: true)
        var moved: [Int32] = []
        swap(&moved, &cache.movedLog)
        // One sweep in stamp (dependency) order over the rows marked in `cache.pendingStamps`. Non-basic
        // symbols and basic restricted ones (which no external row holds) have value 0 in
        // `values`, so a row's value is its constant plus the dot product, with no test per cell.
        // The loop runs over raw buffers: it visits every row that a resize moves (~9,000 in a
        // 5,000-view grid), and array accessors cost a retain or a uniqueness check each.
        tableau.stampOrder.withUnsafeBufferPointer { order in
            tableau.slots.withUnsafeBufferPointer { slots in
                cache.values.withUnsafeMutableBufferPointer { values in
                    cache.pendingStamps.withUnsafeMutableBufferPointer { pending in
                        Solver.sweep(order: order, from: from, slots: slots, values: values, pending: pending,
                                     moved: &moved)
                    }
                }
            }
        }
        swap(&moved, &cache.movedLog)
        trimMovedLog()
    }

    /// Stops keeping `cache.movedLog` once it is longer than the solver (no cheaper to read than every
    /// value) or not kept anyway (`cache.movedUnknown`).
    mutating func trimMovedLog() {
        if cache.movedUnknown || cache.movedLog.count > tableau.slots.count {
            cache.movedUnknown = true
            cache.movedLog.removeAll(keepingCapacity: true)
        }
    }

    /// `cache.pendingStamps` with a bit for every stamp (new words clear).
    mutating func growPendingStamps() {
        let words = (tableau.stampOrder.count + 63) >> 6
        if cache.pendingStamps.count < words {
            cache.pendingStamps.append(contentsOf: repeatElement(0, count: words - cache.pendingStamps.count))
        }
    }

    /// The symbols whose cached value changed since the record was last reset, as symbol
    /// numbers (`Variable.index` for a variable; other symbols may appear too), possibly
    /// repeated, in no particular order; with `resetting`, a new record starts after this answer.
    /// Only values brought up to date count: call `updateValues()` first to include the latest
    /// operations. nil when that is not known (no reset since the solver was made, or more
    /// changed than it has symbols): then any value may have changed. For a caller that redraws
    /// only what moved.
    public mutating func movedVariables(resetting: Bool) -> [Int32]? {
        let moved = cache.movedUnknown ? nil : cache.movedLog
        if resetting {
            cache.movedLog.removeAll(keepingCapacity: true)
            cache.movedUnknown = false
        }
        return moved
    }

    /// Marks the row installed with stamp `k + 1` for the sweep.
    @inline(__always)
    mutating func markPending(_ k: Int) {
        cache.pendingStamps[k >> 6] |= 1 << UInt64(k & 63)
    }

    /// Recomputes the marked rows in stamp order, from the mark at `from` on: each word of marks
    /// is read again after a row is done, because the row's dependents (later stamps) may be
    /// marked in it. Only the marked rows are visited: a scan of every stamp from the oldest
    /// changed row visited hundreds of untouched rows per resize. Every mark is cleared.
    ///
    /// A mark names a basic row by its current stamp (`order[k]` was installed with stamp
    /// `k + 1`): marks are set only for basic rows and nothing enters or leaves the basis during
    /// the sweep, so a marked row is read without looking up its flags, and `isDirty` keeps one
    /// meaning (listed in `cache.dirty`).
    private static func sweep(order: UnsafeBufferPointer<Int32>, from: Int, slots: UnsafeBufferPointer<SymbolSlot>,
                              values: UnsafeMutableBufferPointer<Double>, pending: UnsafeMutableBufferPointer<UInt64>,
                              moved: inout [Int32]) {
        var w = max(0, from) >> 6
        while let k = takeLowestMark(pending, from: &w) {
            let x = order[k]
            let xi = Int(x)
            assert(Int(slots[xi].stamp) == k + 1, "a mark names the row installed with its stamp")
            var v = slots[xi].row.constant
            slots[xi].row.cells.withUnsafeBufferPointer { cells in
                for cell in cells { v += cell.coefficient * values[Int(cell.symbol)] }
            }
            if v != values[xi] {
                values[xi] = v
                moved.append(x)
                // Only external rows reference an external, and only rows installed after it.
                slots[xi].column.withEntries { column in
                    for y in column {
                        let j = Int(slots[Int(y)].stamp) - 1
                        if j > k { pending[j >> 6] |= 1 << UInt64(j & 63) }
                    }
                }
            }
        }
    }

    /// The lowest mark in `pending` at word `w` or later, cleared, or nil when none is left; `w`
    /// moves past the words found empty (a mark set behind it is not seen: marks only go to
    /// later stamps while a sweep runs).
    @inline(__always)
    static func takeLowestMark(_ pending: UnsafeMutableBufferPointer<UInt64>, from w: inout Int) -> Int? {
        while w < pending.count {
            let bits = pending[w]
            if bits == 0 {
                w += 1
                continue
            }
            pending[w] = bits & (bits &- 1)
            return w << 6 | bits.trailingZeroBitCount
        }
        return nil
    }

    /// The value of `symbol` without the cache (when values are stale).
    func evaluate(_ symbol: Int32) -> Double {
        guard tableau.slots[Int(symbol)].isBasic else { return 0 }
        var memo: [Int32: Double] = [:]
        var stack: [Int32] = [symbol]
        while let t = stack.last {
            if memo[t] != nil { stack.removeLast(); continue }
            let row = tableau.slots[Int(t)].row
            var missing = false
            for cell in row.cells where tableau.slots[Int(cell.symbol)].isBasic && memo[cell.symbol] == nil {
                stack.append(cell.symbol)
                missing = true
            }
            if missing { continue }
            stack.removeLast()
            var v = row.constant
            for cell in row.cells where tableau.slots[Int(cell.symbol)].isBasic {
                v += cell.coefficient * memo[cell.symbol]!
            }
            memo[t] = v
        }
        return memo[symbol]!
    }
}
