// What, besides the basis, decides which free directions are blocked; and the stamp that lets a
// caller keep the free directions it computed until they may differ.

/// What `Solver.freeDirections()` depended on when it was taken: the pivot count (the basis and
/// the coefficients change only with a pivot, an addition or a removal, each of which pivots or
/// changes the rows) and the degenerate rows.
public struct FreeDirectionsStamp: Equatable, Sendable {
    let pivots: Int
    let degenerate: [Int32]
}

extension Solver {
    /// Whether `freeDirections()` answers now as it did when `stamp` was taken. False means it
    /// may differ (a pivot, or a restricted row became degenerate or stopped being so); a caller
    /// that also added or removed constraints without a pivot must recompute regardless.
    /// Cheap after `stampFreeDirections` when only constants changed since: it reads the rows
    /// those changes shifted.
    public func freeDirectionsUnchanged(since stamp: FreeDirectionsStamp) -> Bool {
        counters.pivots == stamp.pivots && degenerateRowsEqual(stamp.degenerate)
    }

    /// A stamp of what `freeDirections()` depends on now, and the start of the record of shifted
    /// rows that makes the next `freeDirectionsUnchanged(since:)` cheap. With `current` (a stamp
    /// `freeDirectionsUnchanged` just confirmed), that stamp is kept instead of scanning for the
    /// degenerate rows again.
    public mutating func stampFreeDirections(keeping current: FreeDirectionsStamp? = nil) -> FreeDirectionsStamp {
        let stamp = current ?? FreeDirectionsStamp(pivots: counters.pivots, degenerate: degenerateRows())
        markDegeneracyBaseline()
        return stamp
    }

    /// The restricted (slack or error) basic symbols whose row constant is zero, ascending.
    ///
    /// `freeDirections` depends on the basis, the coefficients and exactly this set (a direction is
    /// blocked by a degenerate restricted row). An edit that changes only constants, without a
    /// pivot, leaves the basis and coefficients as they were: when this set is unchanged too, so
    /// are the free directions, and a caller may keep the ones it has.
    func degenerateRows() -> [Int32] {
        var out: [Int32] = []
        for s in tableau.status.indices where isDegenerate(s) { out.append(Int32(s)) }
        return out
    }

    /// A basic slack or error symbol whose row constant is zero: the set `degenerateRows` lists.
    /// The slot (and its row's constant) is read only for basic slack and error rows.
    @inline(__always)
    func isDegenerate(_ s: Int) -> Bool {
        tableau.status[s].isBasicSlackOrError && tableau.slots[s].row.constant < Tolerance.zero
    }

    /// Starts recording which restricted rows constant changes touch, so that
    /// `degenerateRowsEqual` can check only those (call it when `degenerateRows()` was just read,
    /// or `degenerateRowsEqual` just answered true).
    mutating func markDegeneracyBaseline() {
        degeneracy.shifted.removeAll(keepingCapacity: true)
        degeneracy.unknown = false
    }

    /// True when `degenerateRows()` would return exactly `previous` (checked without building it).
    /// `previous` must be what `degenerateRows()` returned at the last `markDegeneracyBaseline()`
    /// for the quick check: when no row changed since but by constant shifts, only the shifted
    /// rows can have changed status (a constant change in a 1,000-view form touches a few rows,
    /// where the full scan reads every symbol). Otherwise it scans every symbol, through raw
    /// buffers, since the array accessors' checks cost more than the test itself.
    func degenerateRowsEqual(_ previous: [Int32]) -> Bool {
        if !degeneracy.unknown {
            for b in degeneracy.shifted {
                let bi = Int(b)
                let now = isDegenerate(bi)
                if now != Self.sortedContains(previous, b) { return false }
            }
            return true
        }
        return tableau.slots.withUnsafeBufferPointer { slots in
            tableau.status.withUnsafeBufferPointer { status in
                previous.withUnsafeBufferPointer { previous in
                    var k = 0
                    for s in 0..<status.count where status[s].isBasicSlackOrError && slots[s].row.constant < Tolerance.zero {
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
