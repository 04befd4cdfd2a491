/// The lexicographic objective: one `Objective` row per priority level in use, highest first.
/// The keys are the levels' priorities (`Strength.brokenLevel` above every optional one, and
/// `.infinity` for the artificial objective while a required constraint is being added).
struct ObjectiveLevels: Sendable {
    var keys: [Double] = []
    var rows: [Objective] = []
}

/// One level of the lexicographic objective: a coefficient per symbol (0 where absent).
///
/// An objective level holds every error symbol of its priority (thousands in a large layout), and
/// every pivot removes the entering symbol and adds the leaving row's cells. Kept as a sorted
/// sparse row, each of those edits paid a memmove of the whole level (the largest cost of a
/// 5,000-view grid resize, with hundreds of dual pivots). So a level that grows past
/// `denseThreshold` symbols switches to an array indexed by symbol number (O(1) edits and
/// lookups, 8 bytes per symbol up to the highest it has held); a small level stays sparse, so a
/// small session does not pay 8 bytes per symbol per level. Both forms do the same arithmetic
/// (a coefficient that falls below `Tolerance.zero` is dropped), so values are identical.
struct Objective: Sendable {
    static let denseThreshold = 256

    /// The sparse form (while `isDense` is false).
    var sparse = Row()
    /// The dense form, by symbol number (once `isDense`).
    var dense: [Double] = []
    var isDense = false

    init() {}

    @inline(__always)
    func coefficient(_ s: Int32) -> Double {
        if !isDense { return sparse.coefficient(s) }
        let i = Int(s)
        return i < dense.count ? dense[i] : 0
    }

    /// Calls `body` with each symbol whose coefficient is not zero, and the coefficient.
    @inline(__always)
    func forEachNonzero(_ body: (Int32, Double) -> Void) {
        if !isDense {
            for cell in sparse.cells { body(cell.symbol, cell.coefficient) }
        } else {
            for i in dense.indices where dense[i] != 0 { body(Int32(i), dense[i]) }
        }
    }

    /// Removes `s`, returning its coefficient (0 if absent).
    @discardableResult
    mutating func remove(_ s: Int32) -> Double {
        if !isDense { return sparse.remove(s) }
        let i = Int(s)
        guard i < dense.count else { return 0 }
        let c = dense[i]
        dense[i] = 0
        return c
    }

    /// Adds `c·s`.
    mutating func add(_ s: Int32, _ c: Double) {
        if !isDense {
            sparse.add(s, c)
            if sparse.count > Objective.denseThreshold { makeDense() }
            return
        }
        let i = Int(s)
        if i >= dense.count {
            if abs(c) < Tolerance.zero { return }
            dense.append(contentsOf: repeatElement(0, count: i + 1 - dense.count))
        }
        let v = dense[i] + c
        dense[i] = abs(v) < Tolerance.zero ? 0 : v
    }

    /// `self += c · other`.
    mutating func add(_ other: Row, times c: Double) {
        guard let last = other.cells.last?.symbol else { return }
        if !isDense {
            for cell in other.cells { sparse.add(cell.symbol, c * cell.coefficient) }
            if sparse.count > Objective.denseThreshold { makeDense() }
            return
        }
        let n = Int(last) + 1
        if dense.count < n { dense.append(contentsOf: repeatElement(0, count: n - dense.count)) }
        // One uniqueness check for the level, not one per cell (a pivot adds ~20 cells to it).
        dense.withUnsafeMutableBufferPointer { objective in
            for cell in other.cells {
                let v = objective[Int(cell.symbol)] + c * cell.coefficient
                objective[Int(cell.symbol)] = abs(v) < Tolerance.zero ? 0 : v
            }
        }
    }

    private mutating func makeDense() {
        let n = Int(sparse.cells.last!.symbol) + 1
        dense = [Double](repeating: 0, count: n)
        for cell in sparse.cells { dense[Int(cell.symbol)] = cell.coefficient }
        sparse = Row()
        isDense = true
    }

    /// Drops the entries of symbols numbered `count` and above (which must be 0).
    mutating func truncate(to count: Int) {
        if isDense && dense.count > count { dense.removeLast(dense.count - count) }
    }

    /// Symbols with a non-zero coefficient, ascending.
    var symbols: [Int32] {
        isDense ? dense.indices.filter { dense[$0] != 0 }.map { Int32($0) } : sparse.symbols
    }
}
