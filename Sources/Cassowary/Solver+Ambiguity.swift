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
    /// The directions along which another optimal solution exists: moves of the non-basic
    /// symbols with a zero reduced cost at every level (an external one either way, a slack or
    /// error upwards) that keep every degenerate restricted row non-negative and every basic
    /// dummy at zero, as generators of the cone of such moves (`FreeCone`), each given as the
    /// rates of change of the external variables. A variable, or any linear combination of
    /// variables (x relative to the parent), is ambiguous exactly when some direction moves it.
    ///
    /// A candidate that no such row holds back together with another candidate is its own cone:
    /// its direction (or none, when a row blocks it). Candidates that share rows are cut by those
    /// rows together, so a move that needs two symbols at once to escape a degenerate vertex is
    /// found. Should a group have more than `FreeCone.symbolLimit` symbols or its cone need more
    /// than `FreeCone.limit` generators, its symbols are judged one at a time instead (a move that
    /// needs several together is then missed).
    public func freeDirections() -> [FreeDirection] {
        // Every symbol's `lexSign` at once, level by level (the first level with a coefficient
        // decides): one pass over the objectives' cells instead of a search in each level for
        // each symbol, which made up most of the check after an edit that adds constraints.
        var costs = [Int8](repeating: 0, count: tableau.slots.count)
        for objective in objectives.rows {
            objective.forEachNonzero { s, c in
                let i = Int(s)
                guard i < costs.count, costs[i] == 0 else { return }
                if c < -Tolerance.zero { costs[i] = -1 } else if c > Tolerance.zero { costs[i] = 1 }
            }
        }
        // The candidates are picked from `tableau.status` (a byte a symbol) and the costs: the slots of
        // the few that remain are read, not every symbol's.
        var candidates: [Int32] = []
        for s in tableau.status.indices where !tableau.status[s].isBasic && costs[s] == 0 {
            let kind = tableau.status[s].kind
            if kind == .dummy || (kind != .external && tableau.owner[s] < 0) { continue }
            candidates.append(Int32(s))
        }
        if candidates.isEmpty { return [] }
        // One walk of each candidate's column: which way its holding rows let it move, and
        // whether another candidate is in one of them (`holder`: -1 no candidate yet, else the
        // first one's position).
        let upBlocked: UInt8 = 1, downBlocked: UInt8 = 2, isShared: UInt8 = 4
        var flags = [UInt8](repeating: 0, count: candidates.count)
        var holder = [Int32](repeating: -1, count: tableau.slots.count)
        for (i, sym) in candidates.enumerated() {
            var f: UInt8 = tableau.status[Int(sym)].kind == .external ? 0 : downBlocked
            forEachHoldingRow(of: sym) { b in
                let h = holder[Int(b)]
                if h < 0 {
                    holder[Int(b)] = Int32(i)
                } else {
                    f |= isShared
                    flags[Int(h)] |= isShared
                }
                let (up, down) = blocks(b, sym)
                if up { f |= upBlocked }
                if down { f |= downBlocked }
            }
            flags[i] |= f
        }
        var out: [FreeDirection] = []
        var shared: [Int32] = []
        for (i, sym) in candidates.enumerated() {
            if flags[i] & isShared != 0 {
                shared.append(sym)
            } else if flags[i] & (upBlocked | downBlocked) != upBlocked | downBlocked {
                appendDirection(of: sym, to: &out)
            }
        }
        if !shared.isEmpty { appendSharedDirections(shared, to: &out) }
        return out
    }

    /// Calls `body` with each basic row that can hold `s` back: a restricted row at zero or a
    /// dummy in its column (a slack or error must stay non-negative, a dummy at zero).
    @inline(__always)
    func forEachHoldingRow(of s: Int32, _ body: (Int32) -> Void) {
        for b in tableau.slots[Int(s)].column {
            let bi = Int(b)
            // The kind from `tableau.status`: most rows in a column are external, skipped without
            // reading their slot; a restricted row's constant sits in its slot, its coefficients
            // in the row's own cells, which only a row at zero needs read.
            switch tableau.status[bi].kind {
            case .external: continue
            case .dummy: body(b)
            case .slack, .error: if isDegenerate(bi) { body(b) }
            }
        }
    }

    /// The direction of `sym` alone when it can move: the fallback for a group whose cone
    /// outgrew the limit.
    private func appendSingleDirection(_ sym: Int32, to out: inout [FreeDirection]) {
        let (upBlocked, downBlocked) = blocked(sym, bothWays: tableau.status[Int(sym)].kind == .external)
        if !(upBlocked && downBlocked) { appendDirection(of: sym, to: &out) }
    }

    /// The move of `sym` alone, as its rates on the externals (none when it moves none).
    private func appendDirection(of sym: Int32, to out: inout [FreeDirection]) {
        let rates = rates(of: sym)
        if !rates.isEmpty { out.append(FreeDirection(rates: rates)) }
    }

    /// Whether moving `s` up (and, when `bothWays`, down; otherwise down counts as blocked)
    /// would immediately make one of its holding rows negative, or move a dummy.
    func blocked(_ s: Int32, bothWays: Bool) -> (up: Bool, down: Bool) {
        var up = false, down = !bothWays
        forEachHoldingRow(of: s) { b in
            let (u, d) = blocks(b, s)
            up = up || u
            down = down || d
        }
        return (up, down)
    }

    /// Which moves of `s` its holding row `b` blocks: both for a dummy (it must stay zero), for a
    /// restricted row at zero the one that would make it negative.
    @inline(__always)
    func blocks(_ b: Int32, _ s: Int32) -> (up: Bool, down: Bool) {
        if tableau.status[Int(b)].kind == .dummy { return (true, true) }
        let c = tableau.slots[Int(b)].row.coefficient(s)
        return (c < 0, c > 0)
    }

    /// The directions of `shared` (candidates held back by rows another candidate is in too):
    /// the candidates linked through shared rows form groups, each a cone cut by its rows.
    private func appendSharedDirections(_ shared: [Int32], to out: inout [FreeDirection]) {
        let rowsOf: [[Int32]] = shared.map { s in
            var rows: [Int32] = []
            forEachHoldingRow(of: s) { rows.append($0) }
            return rows
        }
        // Union-find over positions in `shared`, joined through the rows they share.
        var parent = Array(shared.indices)
        func root(_ i: Int) -> Int {
            var r = i
            while parent[r] != r { r = parent[r] }
            var j = i
            while parent[j] != r { (j, parent[j]) = (parent[j], r) }
            return r
        }
        var first: [Int32: Int] = [:]
        for i in shared.indices {
            for b in rowsOf[i] {
                if let k = first[b] { parent[root(i)] = root(k) } else { first[b] = i }
            }
        }
        let roots = shared.indices.map { root($0) }
        let order = shared.indices.sorted { (roots[$0], $0) < (roots[$1], $1) }
        var start = 0
        while start < order.count {
            var end = start + 1
            while end < order.count && roots[order[end]] == roots[order[start]] { end += 1 }
            let members = Array(order[start ..< end])
            let symbols = members.map { shared[$0] }
            var rows = members.flatMap { rowsOf[$0] }
            rows.sort()
            var cone = FreeCone(restricted: symbols.map { tableau.status[Int($0)].kind != .external })
            var previous: Int32 = -1
            for b in rows where b != previous {
                previous = b
                var a = [Double](repeating: 0, count: symbols.count)
                for cell in tableau.slots[Int(b)].row.cells {
                    if let k = symbols.firstIndex(of: cell.symbol) { a[k] = cell.coefficient }
                }
                cone.cut(a, equality: tableau.status[Int(b)].kind == .dummy)
            }
            if cone.overflowed {
                for sym in symbols { appendSingleDirection(sym, to: &out) }
            } else {
                out += directions(of: cone, symbols: symbols)
            }
            start = end
        }
    }

    /// Each generator of `cone` (a move of `symbols`) as the rates of the externals: the sum of
    /// its symbols' rates (each computed once).
    private func directions(of cone: FreeCone, symbols: [Int32]) -> [FreeDirection] {
        var symbolRates: [Int: [(Variable, Double)]] = [:]
        var out: [FreeDirection] = []
        for g in cone.generators {
            var sum: [Variable: Double] = [:]
            for (i, w) in g.enumerated() where w != 0 {
                if symbolRates[i] == nil { symbolRates[i] = rates(of: symbols[i]) }
                for (v, r) in symbolRates[i]! { sum[v, default: 0] += w * r }
            }
            let rates = sum.filter { abs($0.value) > Tolerance.rate }.sorted { $0.key < $1.key }.map { ($0.key, $0.value) }
            if !rates.isEmpty { out.append(FreeDirection(rates: rates)) }
        }
        return out
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
