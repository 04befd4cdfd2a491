// Adding rows (choosing a subject, the artificial-variable phase), the primal simplex over the
// lexicographic objective, the dual simplex for constant changes, and removal.

extension Solver {
    /// Installs a row whose subject is a fresh external (referenced by no row): the row keeps its
    /// references, nothing is substituted. Returns false when the row has no fresh external.
    mutating func installWithFreshSubject(_ row: inout Row) -> Bool {
        guard let x = freshSubject(row) else { return false }
        var r = Row()
        swap(&r, &row)
        r.solve(for: x)
        installRow(x, r)
        return true
    }

    /// Expands the row into non-basic symbols (with a non-negative constant, so that a restricted
    /// subject with a negative coefficient enters feasibly) and installs it under a chosen subject.
    /// Returns false when no subject exists.
    mutating func installReduced(_ row: inout Row, _ record: ConstraintRecord) -> Bool {
        expand(&row)
        if row.constant < 0 { row.negate() }
        guard let subject = chooseSubject(row, record) else { return false }
        row.solve(for: subject)
        // A restricted subject is a marker created with this row: no row holds it, but its
        // objective level does.
        // Rows that held an external subject as a parameter now reference its reduced row, which
        // references nothing (stamp 0): stamp order stays a dependency order for rows with
        // references; other reduced rows take the row, so that reduced rows never reference.
        if kinds[Int(subject)] != .external {
            substitute(subject, row)
        } else if columns[Int(subject)].contains(where: { stamp[Int($0)] == 0 }) {
            substitute(subject, row, intoReducedRowsOnly: true)
        }
        var r = Row()
        swap(&r, &row)
        installRow(subject, r)
        return true
    }

    mutating func insertOptional(_ record: inout ConstraintRecord, id: ConstraintID) {
        var row = createRow(&record, id: id)
        if installWithFreshSubject(&row) || installReduced(&row, record) { return }
        do {
            // An optional row always has an error symbol to take as subject; this is defensive.
            _ = addWithArtificialVariable(row)
        }
    }

    /// Inserts a required constraint's row.
    /// - Returns: failure with the conflicting required constraints when it cannot hold; the
    ///   tableau then holds exactly the previous constraints (and with `.reject`, is exactly the
    ///   previous value).
    mutating func insertRequired(_ record: inout ConstraintRecord, id: ConstraintID,
                                 policy: ConflictPolicy) -> Result<Void, ConflictList> {
        let mark = kinds.count
        var row = createRow(&record, id: id)
        if installWithFreshSubject(&row) || installReduced(&row, record) { return .success(()) }
        if row.symbols.allSatisfy({ kinds[Int($0)] == .dummy }) {
            if abs(row.constant) < Row.epsilon {
                // Redundant with required equalities already in place: keep the marker basic so
                // that removal and constant changes still find it.
                row.solve(for: record.marker)
                substitute(record.marker, row)
                installRow(record.marker, row)
                return .success(())
            }
            // Only required equalities' markers remain: they are the conflict.
            let conflicts = requiredOwners(of: row.symbols, excluding: id)
            truncateSymbols(to: mark)
            return .failure(ConflictList(conflicts))
        }
        var saved: Solver? = nil
        if policy == .reject {
            // The artificial phase pivots; keep the exact previous state to roll back to. The
            // copy is O(1) until written (copy-on-write), and this path is rare: it is taken only
            // by rows with no external variable left after substitution.
            truncateSymbols(to: mark)
            saved = self
            row = createRow(&record, id: id)
            expand(&row)
            if row.constant < 0 { row.negate() }
        }
        let (ok, conflicts) = addWithArtificialVariable(row, excluding: id)
        if ok { return .success(()) }
        if let saved { self = saved }
        return .failure(ConflictList(conflicts))
    }

    /// Markowitz-style choice: among the row's external symbols, the one with the shortest column
    /// (least fill-in when it is substituted away); ties go to the lowest symbol number. Without
    /// one, the marker or the other error when pivotable with a negative coefficient.
    func chooseSubject(_ row: Row, _ record: ConstraintRecord) -> Int32? {
        var best: Int32 = -1
        var bestCost = Int.max
        for cell in row.cells where kinds[Int(cell.symbol)] == .external {
            let cost = columns[Int(cell.symbol)].count
            if cost < bestCost {
                best = cell.symbol
                bestCost = cost
                if cost == 0 { break }
            }
        }
        if best >= 0 { return best }
        if kinds[Int(record.marker)].isPivotable && row.coefficient(record.marker) < 0 { return record.marker }
        if record.other >= 0 && kinds[Int(record.other)].isPivotable && row.coefficient(record.other) < 0 {
            return record.other
        }
        return nil
    }

    /// The artificial-variable phase: the row enters as `art = row`, `art` is minimised at a level
    /// above all others; the constraint holds iff the minimum is 0. On failure the row is dropped
    /// (the tableau holds the previous constraints) and the conflict is read off the artificial
    /// objective: the required constraints whose markers carry a non-zero reduced cost there.
    mutating func addWithArtificialVariable(_ row: Row, excluding id: ConstraintID? = nil) -> (Bool, [ConstraintID]) {
        let art = newSymbol(.slack)
        installRow(art, row)
        levelKeys.insert(.infinity, at: 0)
        var artificial = Objective()
        artificial.add(row, times: 1)
        objectives.insert(artificial, at: 0)
        for cell in row.cells { markCandidate(cell.symbol) }
        optimize()
        let artificialObjective = objectives.removeFirst()
        levelKeys.removeFirst()
        let success = !isBasic[Int(art)] || abs(rows[Int(art)].constant) < 1e-8
        if !success {
            let conflicts = requiredOwners(of: artificialObjective.symbols, excluding: id)
            _ = takeRow(art)
            return (false, conflicts)
        }
        if isBasic[Int(art)] {
            var r = takeRow(art)
            if !r.isEmpty {
                // art is 0: swap it for a pivotable symbol of its row, else (a redundant equality)
                // for a dummy, so that the row's information stays in the tableau.
                let entering = r.cells.first { kinds[Int($0.symbol)].isPivotable }?.symbol ?? r.cells[0].symbol
                r.solve(art, for: entering)
                substitute(entering, r)
                installRow(entering, r)
                statistics.pivots += 1
            }
        }
        var column: [Int32] = []
        swap(&column, &columns[Int(art)])
        for b in column {
            rows[Int(b)].remove(art)
            if kinds[Int(b)] == .external { markDirty(b) }
        }
        for k in objectives.indices { objectives[k].remove(art) }
        return (true, [])
    }

    /// Sign of the reduced-cost vector of `s`: the first level where it is not zero decides.
    @inline(__always)
    func lexSign(_ s: Int32) -> Int {
        for k in objectives.indices {
            let c = objectives[k].coefficient(s)
            if c < -Row.epsilon { return -1 }
            if c > Row.epsilon { return 1 }
        }
        return 0
    }

    /// Bland's rule: the lowest-numbered pivotable symbol with a negative reduced cost. It cannot
    /// cycle on degenerate systems, and layouts rarely need many pivots per operation.
    mutating func pickEntering() -> Int32? {
        var best: Int32 = -1
        var i = 0
        while i < candidates.count {
            let s = candidates[i]
            let si = Int(s)
            if isBasic[si] || !kinds[si].isPivotable || lexSign(s) >= 0 {
                isCandidate[si] = false
                candidates.swapAt(i, candidates.count - 1)
                candidates.removeLast()
                continue
            }
            if best < 0 || s < best { best = s }
            i += 1
        }
        return best >= 0 ? best : nil
    }

    /// The primal simplex: minimises the objective levels lexicographically.
    mutating func optimize() {
        while let entering = pickEntering() {
            var leaving: Int32 = -1
            var best = Double.infinity
            for b in columns[Int(entering)] {
                let bi = Int(b)
                let kind = kinds[bi]
                guard kind.isRestricted else { continue }
                let c = rows[bi].coefficient(entering)
                // A basic dummy (a redundant required equality) must stay exactly 0: it blocks
                // the entering symbol in either direction.
                if c < 0 || (kind == .dummy && c != 0) {
                    let r = abs(rows[bi].constant / c)
                    // Columns are unordered: ties go to the lowest symbol explicitly (Bland).
                    if r < best || (r == best && b < leaving) { best = r; leaving = b }
                }
            }
            if leaving < 0 {
                // Every level is a sum of non-negative errors, so no direction is unbounded in
                // exact arithmetic; a float-noise direction is dropped instead of thrown.
                isCandidate[Int(entering)] = false
                candidates.removeAll { $0 == entering }
                continue
            }
            pivot(entering, leaving)
        }
    }

    /// Exchanges a restricted `entering` symbol (non-basic) with `leaving` (basic).
    ///
    /// The row keeps its cells, so instead of leaving every column and joining it again it is
    /// renamed in place: each column entry that said `leaving` now says `entering` (one write a
    /// cell; rows of a 5,000-view grid's labels hold ~20 markers, and a resize pivots hundreds of
    /// times). Only the entering symbol's cell leaves and the leaving symbol's cell joins.
    mutating func pivot(_ entering: Int32, _ leaving: Int32) {
        let li = Int(leaving), ei = Int(entering)
        var row = Row()
        swap(&row, &rows[li])
        isBasic[li] = false
        if kinds[li] == .external { markDirty(leaving) }
        let j = row.search(entering)
        let slot = row.cells[j].slot
        row.solve(leaving, for: entering)
        columns.withUnsafeMutableBufferPointer { columns in
            for cell in row.cells where cell.slot >= 0 { columns[Int(cell.symbol)][Int(cell.slot)] = entering }
        }
        let jl = row.search(leaving)
        row.cells[jl].slot = Int32(columns[li].count)
        columns[li].append(entering)
        rows[ei] = row
        isBasic[ei] = true
        // Entering's own cell is gone from the row; `unindex` may move another row's entry, which
        // needs that row in place (hence after the install).
        unindex(entering, slot: slot)
        substitute(entering, row)
        if rows[ei].constant < -Row.epsilon { pushInfeasible(entering) }
        statistics.pivots += 1
    }

    /// The dual simplex: restores feasibility after constants changed, keeping optimality.
    /// - Returns: nil on success, else the basic symbol of a row that cannot be made feasible.
    mutating func dualOptimize() -> Int32? {
        while let leaving = infeasible.pop() {
            let li = Int(leaving)
            guard isBasic[li], kinds[li].isRestricted, rows[li].constant < -Row.epsilon else { continue }
            var entering: Int32 = -1
            var enteringCoefficient = 0.0
            let row = rows[li]
            for cell in row.cells {
                let s = cell.symbol
                let c = cell.coefficient
                guard c > Row.epsilon, kinds[Int(s)].isPivotable else { continue }
                if entering < 0 || ratioLess(s, c, entering, enteringCoefficient) {
                    entering = s
                    enteringCoefficient = c
                }
            }
            if entering < 0 {
                infeasible.removeAll()
                return leaving
            }
            pivot(entering, leaving)
        }
        return nil
    }

    mutating func collectInfeasibleRows() {
        infeasible.removeAll()
        for i in isBasic.indices where isBasic[i] && kinds[i].isRestricted && kinds[i] != .dummy {
            if rows[i].constant < -Row.epsilon { pushInfeasible(Int32(i)) }
        }
    }

    /// Lexicographic comparison of reduced-cost ratios d(a)/ca < d(b)/cb; ties by symbol number.
    func ratioLess(_ a: Int32, _ ca: Double, _ b: Int32, _ cb: Double) -> Bool {
        for k in objectives.indices {
            let ra = objectives[k].coefficient(a) / ca
            let rb = objectives[k].coefficient(b) / cb
            if ra < rb { return true }
            if ra > rb { return false }
        }
        return a < b
    }

    /// Applies a change of `delta` to the constraint's expression constant: the marker is renamed
    /// `marker_old = marker_new + shift`, which moves the constant of every row holding it.
    /// - Returns: a basic dummy (a redundant required equality) that became non-zero, if any.
    mutating func shiftMarker(_ record: ConstraintRecord, by delta: Double) -> Int32? {
        let shift = record.rowScale * delta / record.markerCoefficient
        let m = Int(record.marker)
        var inconsistent: Int32? = nil
        infeasible.removeAll()
        if isBasic[m] {
            rows[m].constant -= shift
            if !checkRestricted(record.marker) { inconsistent = record.marker }
        } else {
            // A root resize shifts thousands of rows: the loop runs over raw buffers, and collects
            // what it finds for the bookkeeping below.
            let column = columns[m], marker = record.marker
            var negative: [Int32] = []
            let first = dirty.count
            kinds.withUnsafeBufferPointer { kinds in
                rows.withUnsafeMutableBufferPointer { rows in
                    for b in column {
                        let bi = Int(b)
                        rows[bi].constant += rows[bi].coefficientNearFront(marker) * shift
                        switch kinds[bi] {
                        case .external: dirty.append(b)
                        case .dummy:
                            // The lowest inconsistent dummy row names the conflict (columns are
                            // unordered).
                            if abs(rows[bi].constant) >= 1e-8 && (inconsistent == nil || b < inconsistent!) {
                                inconsistent = b
                            }
                        case .slack, .error:
                            if rows[bi].constant < -Row.epsilon { negative.append(b) }
                        }
                    }
                }
            }
            // Each row is once in the column, so only a row already dirty can be listed twice.
            var k = first
            for j in first..<dirty.count {
                let b = dirty[j]
                if !isDirty[Int(b)] { isDirty[Int(b)] = true; dirty[k] = b; k += 1 }
            }
            dirty.removeLast(dirty.count - k)
            for b in negative { pushInfeasible(b) }
        }
        return inconsistent
    }

    @inline(__always)
    mutating func checkRestricted(_ b: Int32) -> Bool {
        let bi = Int(b)
        switch kinds[bi] {
        case .external: return true
        case .dummy: return abs(rows[bi].constant) < 1e-8
        case .slack, .error:
            if rows[bi].constant < -Row.epsilon { pushInfeasible(b) }
            return true
        }
    }

    /// Removes a constraint's errors from its objective level and its row from the tableau.
    mutating func removeEffects(_ record: ConstraintRecord) {
        if let level = record.level {
            for e in [record.marker, record.other] where e >= 0 && kinds[Int(e)] == .error {
                addToObjective(e, -1, level: level)
            }
        }
        let m = record.marker
        if isBasic[Int(m)] {
            _ = takeRow(m)
        } else if let leaving = markerLeavingRow(m) {
            var row = takeRow(leaving)
            row.solve(leaving, for: m)
            substitute(m, row)
            statistics.pivots += 1
        } else if !columns[Int(m)].isEmpty {
            // Only external rows hold the marker. A row may hold it directly and through its
            // references too: pivot on the first whose full (expanded) coefficient is non-zero.
            var pivoted = false
            for x in columns[Int(m)].sorted() {
                var full = rows[Int(x)]
                expand(&full)
                guard full.coefficient(m) != 0 else { continue }
                _ = takeRow(x)
                full.solve(x, for: m)
                substitute(m, full)
                statistics.pivots += 1
                pivoted = true
                break
            }
            if !pivoted {
                // Every row's net dependence on the marker is zero: its direct cells cancel.
                var column: [Int32] = []
                swap(&column, &columns[Int(m)])
                for b in column {
                    rows[Int(b)].remove(m)
                    markDirty(b)
                }
            }
        }
        if record.other >= 0 && isBasic[Int(record.other)] { _ = takeRow(record.other) }
        for k in objectives.indices {
            objectives[k].remove(m)
            if record.other >= 0 { objectives[k].remove(record.other) }
        }
    }

    /// The restricted row to pivot a marker into before dropping it: the one that stays feasible
    /// (least ratio), ties by symbol number; nil when only external rows hold the marker (the
    /// caller then pivots on an expanded external row).
    ///
    /// A basic dummy row (a redundant required equality, only dummies in it) comes first: the
    /// marker then leaves with value 0, nothing moves, and dummy rows keep holding only dummies,
    /// which is what keeps them at exactly 0 through later pivots.
    func markerLeavingRow(_ m: Int32) -> Int32? {
        var r1 = Double.infinity, r2 = Double.infinity
        var first: Int32 = -1, second: Int32 = -1
        // Columns are unordered: every choice takes the lowest symbol among equals explicitly.
        if let d = columns[Int(m)].lazy.filter({ self.kinds[Int($0)] == .dummy }).min() { return d }
        for b in columns[Int(m)] where kinds[Int(b)] != .external {
            let bi = Int(b)
            let c = rows[bi].coefficient(m)
            if c < 0 {
                let r = -rows[bi].constant / c
                if r < r1 || (r == r1 && b < first) { r1 = r; first = b }
            } else {
                let r = rows[bi].constant / c
                if r < r2 || (r == r2 && b < second) { r2 = r; second = b }
            }
        }
        if first >= 0 { return first }
        return second >= 0 ? second : nil
    }

    /// The held required constraints owning any of `symbols`, ascending, without `id`.
    func requiredOwners(of symbols: [Int32], excluding id: ConstraintID?) -> [ConstraintID] {
        var out: [ConstraintID] = []
        for s in symbols {
            let o = owner[Int(s)]
            guard o >= 0, o != id?.index, let r = records[Int(o)], r.level == nil else { continue }
            out.append(ConstraintID(o))
        }
        return Array(Set(out)).sorted()
    }

    func requiredOwners(inRowOf b: Int32, plus ids: [ConstraintID]) -> [ConstraintID] {
        var syms = rows[Int(b)].symbols
        syms.append(b)
        return Array(Set(requiredOwners(of: syms, excluding: nil) + ids)).sorted()
    }
}

/// The required constraints a failing one conflicts with.
struct ConflictList: Error {
    var ids: [ConstraintID]
    init(_ ids: [ConstraintID]) { self.ids = ids }
}
