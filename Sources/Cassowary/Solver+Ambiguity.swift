// Which values are not uniquely determined.

/// A direction in which the solution can move without changing the error at any level and
/// without violating a required constraint: the rate of change of each external variable.
public struct FreeDirection: Equatable, Sendable {
    /// (variable, rate), ascending by variable; rates are non-zero.
    public var rates: [(Variable, Double)]
    public static func == (a: FreeDirection, b: FreeDirection) -> Bool {
        a.rates.count == b.rates.count && zip(a.rates, b.rates).allSatisfy { $0.0 == $1.0 && $0.1 == $1.1 }
    }
    public func rate(_ v: Variable) -> Double {
        var lo = 0, hi = rates.count - 1
        while lo <= hi {
            let mid = (lo + hi) >> 1
            if rates[mid].0 < v { lo = mid + 1 } else if v < rates[mid].0 { hi = mid - 1 } else { return rates[mid].1 }
        }
        return 0
    }
}

extension Solver {
    /// The directions along which another optimal solution exists: each non-basic symbol with a
    /// zero reduced cost at every level that can move (an external one either way, a slack or
    /// error upwards) without a degenerate restricted row blocking it. A variable is ambiguous when
    /// some direction moves it; for frames, a combination (x relative to the parent) is ambiguous
    /// when the direction moves it.
    ///
    /// Single-symbol directions are checked; a move that needs several non-basic symbols together
    /// to escape degenerate rows is not found (documented limitation).
    public func freeDirections() -> [FreeDirection] {
        var out: [FreeDirection] = []
        // Every symbol's `lexSign` at once, level by level (the first level with a coefficient
        // decides): one pass over the objectives' cells instead of a search in each level for
        // each symbol, which made up most of the check after an edit that adds constraints.
        var costs = [Int8](repeating: 0, count: slots.count)
        for objective in objectives {
            objective.forEachNonzero { s, c in
                let i = Int(s)
                guard i < costs.count, costs[i] == 0 else { return }
                if c < -Row.epsilon { costs[i] = -1 } else if c > Row.epsilon { costs[i] = 1 }
            }
        }
        // The candidates are picked from `status` (a byte a symbol) and the costs: the slots of
        // the few that remain are read, not every symbol's.
        for s in status.indices where !status[s].isBasic && costs[s] == 0 {
            let kind = status[s].kind
            if kind == .dummy { continue }
            if kind != .external && owner[s] < 0 { continue }
            let sym = Int32(s)
            let (upBlocked, downBlocked) = blocked(sym, bothWays: kind == .external)
            if upBlocked && downBlocked { continue }
            let rates = rates(of: sym)
            if rates.isEmpty { continue }
            out.append(FreeDirection(rates: rates))
        }
        return out
    }

    /// Whether moving `s` up (and, when `bothWays`, down; otherwise down counts as blocked)
    /// would immediately make a restricted basic row negative, or move a basic dummy.
    ///
    /// One walk of the column answers both directions. A restricted row blocks only when its
    /// constant is zero (degenerate): that is tested first, since the constant sits in the slot
    /// while the coefficient is in the row's own cells, another allocation, which most rows
    /// never need read (this check runs over every candidate's column after each pivot).
    func blocked(_ s: Int32, bothWays: Bool) -> (up: Bool, down: Bool) {
        var up = false, down = !bothWays
        for b in slots[Int(s)].column {
            let bi = Int(b)
            // The kind from `status`: most rows in a column are external, skipped without
            // reading their slot.
            switch status[bi].kind {
            case .external: continue
            case .dummy: return (true, true)
            case .slack, .error:
                guard slots[bi].row.constant < 1e-9 else { continue }
                let c = slots[bi].row.coefficient(s)
                if c < 0 { up = true } else if c > 0 { down = true }
                if up && down { return (true, true) }
            }
        }
        return (up, down)
    }
}
