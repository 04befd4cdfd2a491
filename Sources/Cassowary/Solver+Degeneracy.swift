// What, besides the basis, decides which free directions are blocked.

extension Solver {
    /// The restricted (slack or error) basic symbols whose row constant is zero, ascending.
    ///
    /// `freeDirections` depends on the basis, the coefficients and exactly this set (a direction is
    /// blocked by a degenerate restricted row). An edit that changes only constants, without a
    /// pivot, leaves the basis and coefficients as they were: when this set is unchanged too, so
    /// are the free directions, and a caller may keep the ones it has.
    public func degenerateRows() -> [Int32] {
        var out: [Int32] = []
        for s in status.indices where isDegenerate(s) { out.append(Int32(s)) }
        return out
    }

    /// A basic slack or error symbol whose row constant is zero: the set `degenerateRows` lists.
    /// The slot (and its row's constant) is read only for basic slack and error rows.
    @inline(__always)
    func isDegenerate(_ s: Int) -> Bool {
        status[s].isBasicSlackOrError && slots[s].row.constant < 1e-9
    }

    /// Starts recording which restricted rows constant changes touch, so that
    /// `degenerateRowsEqual` can check only those (call it when `degenerateRows()` was just read,
    /// or `degenerateRowsEqual` just answered true).
    public mutating func markDegeneracyBaseline() {
        shiftedRestricted.removeAll(keepingCapacity: true)
        shiftedUnknown = false
    }

    /// True when `degenerateRows()` would return exactly `previous` (checked without building it).
    /// `previous` must be what `degenerateRows()` returned at the last `markDegeneracyBaseline()`
    /// for the quick check: when no row changed since but by constant shifts, only the shifted
    /// rows can have changed status (a constant change in a 1,000-view form touches a few rows,
    /// where the full scan reads every symbol). Otherwise it scans every symbol, through raw
    /// buffers, since the array accessors' checks cost more than the test itself.
    public func degenerateRowsEqual(_ previous: [Int32]) -> Bool {
        if !shiftedUnknown {
            for b in shiftedRestricted {
                let bi = Int(b)
                let now = isDegenerate(bi)
                if now != Self.sortedContains(previous, b) { return false }
            }
            return true
        }
        return slots.withUnsafeBufferPointer { slots in
            status.withUnsafeBufferPointer { status in
                previous.withUnsafeBufferPointer { previous in
                    var k = 0
                    for s in 0..<status.count where status[s].isBasicSlackOrError && slots[s].row.constant < 1e-9 {
                        if k == previous.count || previous[k] != Int32(s) { return false }
                        k += 1
                    }
                    return k == previous.count
                }
            }
        }
    }

    private static func sortedContains(_ sorted: [Int32], _ x: Int32) -> Bool {
        var lo = 0, hi = sorted.count
        while lo < hi {
            let mid = (lo + hi) / 2
            if sorted[mid] < x { lo = mid + 1 } else { hi = mid }
        }
        return lo < sorted.count && sorted[lo] == x
    }
}
