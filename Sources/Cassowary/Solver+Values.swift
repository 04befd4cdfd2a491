// External rows are kept unexpanded: `x = constant + Σ c·s` where `s` may be another basic
// external (a reference). Restricted rows (slacks, errors, dummies) are always fully reduced, as the
// simplex needs. This keeps a chain `y_k = y_{k-1} + h_{k-1} + 8` at three cells per row instead
// of the whole chain's markers: the fill-in that makes kiwi's build cubic.

extension Solver {
    /// Replaces every basic external in `row` by its row, recursively, newest first.
    ///
    /// The sum is kept in a dense accumulator indexed by symbol (`expansion`), so each reference
    /// costs its own row's length, not a merge over the whole accumulated row (a form's rows
    /// reach dozens of cells through hundreds of references). The arithmetic is the merge's, in
    /// the same order, with the same dropping of |coefficient| < `Tolerance.zero`: the result is
    /// bit-identical.
    mutating func expand(_ row: inout Row) {
        guard row.cells.contains(where: { tableau.slots[Int($0.symbol)].isBasic }) else { return }
        growExpansion()
        var touched: [Int32] = []
        swap(&touched, &scratch.touched)
        touched.removeAll(keepingCapacity: true)
        var constant = row.constant
        // Newest first (a max-heap on the install stamp): a row references older rows, so shared
        // references cancel before they are expanded.
        // A basic symbol is pushed when it enters the accumulated row; one that cancels or is
        // pushed twice pops with a zero coefficient and is skipped.
        var heap = StampHeap()
        for cell in row.cells {
            let s = cell.symbol
            scratch.expansion[Int(s)] = cell.coefficient
            touched.append(s)
            if tableau.slots[Int(s)].isBasic { heap.push(s, tableau.slots[Int(s)].stamp) }
        }
        while let x = heap.pop() {
            let c = scratch.expansion[Int(x)]
            if c == 0 { continue }
            scratch.expansion[Int(x)] = 0
            constant += c * tableau.slots[Int(x)].row.constant
            for cell in tableau.slots[Int(x)].row.cells {
                let s = cell.symbol
                let si = Int(s)
                let old = scratch.expansion[si]
                if old == 0 {
                    let v = c * cell.coefficient
                    if abs(v) >= Tolerance.zero {
                        scratch.expansion[si] = v
                        touched.append(s)
                        if tableau.slots[si].isBasic { heap.push(s, tableau.slots[si].stamp) }
                    }
                } else {
                    let v = old + c * cell.coefficient
                    scratch.expansion[si] = abs(v) < Tolerance.zero ? 0 : v
                }
            }
        }
        touched.sort()
        var out = Row(constant: constant)
        // Exactly as long as the result (the row is stored as it is: the touched symbols, which
        // include every cancelled one, would over-allocate it).
        var count = 0
        var previous: Int32 = -1
        for s in touched where s != previous {
            previous = s
            if scratch.expansion[Int(s)] != 0 { count += 1 }
        }
        out.cells.reserveCapacity(count)
        previous = -1
        for s in touched where s != previous {
            previous = s
            let v = scratch.expansion[Int(s)]
            if v != 0 {
                out.cells.append(Cell(s, v))
                scratch.expansion[Int(s)] = 0
            }
        }
        swap(&touched, &scratch.touched)
        row = out
    }

    /// A non-basic external of the row that no row references: making it basic with the row as it
    /// stands creates no cycle and needs no substitution (ties: lowest symbol).
    func freshSubject(_ row: Row) -> Int32? {
        for cell in row.cells {
            let s = cell.symbol
            if tableau.slots[Int(s)].kind == .external && !tableau.slots[Int(s)].isBasic && tableau.slots[Int(s)].column.isEmpty { return s }
        }
        return nil
    }

    /// Brings the external values up to date: the rows changed since the last call, then every
    /// row referencing one whose value moved, lowest stamp first (references point to older
    /// rows, so stamp order is a dependency order). Cost: the rows whose values change.
    public mutating func updateValues() {
        guard !cache.dirty.isEmpty else { return }
        growPendingStamps()
        // Rows that left the basis are 0 now, and reduced rows (stamp 0) depend on nothing: both
        // are settled first; their dependents are marked for the sweep.
        // `isDirty` means "listed in `dirty`" (for `markDirty`'s de-duplication); the sweep
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
        // One sweep in stamp (dependency) order over the rows marked in `pendingStamps`. Non-basic
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

    /// Stops keeping `movedLog` once it is longer than the solver (no cheaper to read than every
    /// value) or not kept anyway (`movedUnknown`).
    mutating func trimMovedLog() {
        if cache.movedUnknown || cache.movedLog.count > tableau.slots.count {
            cache.movedUnknown = true
            cache.movedLog.removeAll(keepingCapacity: true)
        }
    }

    /// `expansion` as long as the symbols (new entries 0).
    mutating func growExpansion() {
        if scratch.expansion.count < tableau.slots.count {
            scratch.expansion.append(contentsOf: repeatElement(0, count: tableau.slots.count - scratch.expansion.count))
        }
    }

    /// `pendingStamps` with a bit for every stamp (new words clear).
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
    /// meaning (listed in `dirty`).
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

    /// How fast each external moves when the non-basic `s` moves by 1: its direct rows and every
    /// row referencing them, in dependency order.
    func rates(of s: Int32) -> [(Variable, Double)] {
        var rate: [Int32: Double] = [:]
        var cone: [Int32] = []
        var seen = Set<Int32>()
        var frontier = tableau.slots[Int(s)].column.filter { tableau.slots[Int($0)].kind == .external }
        while let x = frontier.popLast() {
            if !seen.insert(x).inserted { continue }
            cone.append(x)
            for y in tableau.slots[Int(x)].column where tableau.slots[Int(y)].kind == .external { frontier.append(y) }
        }
        // Dependency order inside the cone.
        var state: [Int32: UInt8] = [:]
        var order: [Int32] = []
        for root in cone where state[root] == nil {
            var stack: [Int32] = [root]
            while let t = stack.last {
                if state[t] == nil {
                    state[t] = 1
                    for cell in tableau.slots[Int(t)].row.cells {
                        let r = cell.symbol
                        if tableau.slots[Int(r)].isBasic && seen.contains(r) && state[r] == nil { stack.append(r) }
                    }
                    continue
                }
                stack.removeLast()
                if state[t] == 2 { continue }
                state[t] = 2
                order.append(t)
            }
        }
        for x in order {
            let row = tableau.slots[Int(x)].row
            var v = 0.0
            for cell in row.cells {
                if cell.symbol == s {
                    v += cell.coefficient
                } else if let r = rate[cell.symbol] {
                    v += cell.coefficient * r
                }
            }
            rate[x] = v
        }
        var out: [(Variable, Double)] = []
        if tableau.slots[Int(s)].kind == .external { out.append((Variable(s), 1)) }
        for (x, v) in rate where abs(v) > Tolerance.rate { out.append((Variable(x), v)) }
        return out.sorted { $0.0 < $1.0 }
    }
}

/// A binary max-heap of symbols by install stamp.
struct StampHeap {
    var items: [(Int32, Int32)] = []
    mutating func push(_ s: Int32, _ key: Int32) {
        items.append((s, key))
        var i = items.count - 1
        while i > 0 {
            let p = (i - 1) / 2
            if items[p].1 >= items[i].1 { break }
            items.swapAt(p, i)
            i = p
        }
    }
    mutating func pop() -> Int32? {
        guard let top = items.first else { return nil }
        let last = items.removeLast()
        if !items.isEmpty {
            items[0] = last
            var i = 0
            while true {
                let l = 2 * i + 1, r = l + 1
                var m = i
                if l < items.count && items[l].1 > items[m].1 { m = l }
                if r < items.count && items[r].1 > items[m].1 { m = r }
                if m == i { break }
                items.swapAt(i, m)
                i = m
            }
        }
        return top.0
    }
}
