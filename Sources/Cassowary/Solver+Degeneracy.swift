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
        for s in kinds.indices where isBasic[s] {
            switch kinds[s] {
            case .slack, .error:
                if rows[s].constant < 1e-9 { out.append(Int32(s)) }
            case .external, .dummy:
                continue
            }
        }
        return out
    }

    /// True when `degenerateRows()` would return exactly `previous` (checked without building it).
    /// Runs on every PATCH without a pivot, over every symbol: through raw buffers, since the
    /// array accessors' checks cost more than the test itself.
    public func degenerateRowsEqual(_ previous: [Int32]) -> Bool {
        kinds.withUnsafeBufferPointer { kinds in
            isBasic.withUnsafeBufferPointer { isBasic in
                rows.withUnsafeBufferPointer { rows in
                    previous.withUnsafeBufferPointer { previous in
                        var k = 0
                        for s in 0..<min(kinds.count, isBasic.count, rows.count) where isBasic[s] {
                            switch kinds[s] {
                            case .slack, .error:
                                if rows[s].constant < 1e-9 {
                                    if k == previous.count || previous[k] != Int32(s) { return false }
                                    k += 1
                                }
                            case .external, .dummy:
                                continue
                            }
                        }
                        return k == previous.count
                    }
                }
            }
        }
    }
}
