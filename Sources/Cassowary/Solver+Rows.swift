// Tableau bookkeeping: symbols, installing and taking rows, the column index, substitution,
// and building a constraint's row.

extension Solver {
    mutating func newSymbol(_ kind: SymbolKind, owner id: Int32 = -1) -> Int32 {
        let s = Int32(kinds.count)
        kinds.append(kind)
        rows.append(Row())
        isBasic.append(false)
        columns.append([])
        owner.append(id)
        isCandidate.append(false)
        stamp.append(0)
        values.append(0)
        isDirty.append(false)
        return s
    }

    /// Drops symbols created after `count` (they must be in no row, column or objective).
    mutating func truncateSymbols(to count: Int) {
        let n = kinds.count - count
        guard n > 0 else { return }
        kinds.removeLast(n); rows.removeLast(n); isBasic.removeLast(n)
        columns.removeLast(n); owner.removeLast(n); isCandidate.removeLast(n)
        stamp.removeLast(n); values.removeLast(n); isDirty.removeLast(n)
        dirty.removeAll { Int($0) >= count }
        candidates.removeAll { Int($0) >= count }
    }

    @inline(__always)
    static func insertSorted(_ array: inout [Int32], _ v: Int32) {
        // Appends are the common case: new rows have the highest symbol numbers.
        if array.isEmpty || array[array.count - 1] < v { array.append(v); return }
        var lo = 0, hi = array.count
        while lo < hi {
            let mid = (lo + hi) >> 1
            if array[mid] < v { lo = mid + 1 } else { hi = mid }
        }
        if lo < array.count && array[lo] == v { return }
        array.insert(v, at: lo)
    }

    @inline(__always)
    static func removeSorted(_ array: inout [Int32], _ v: Int32) {
        var lo = 0, hi = array.count
        while lo < hi {
            let mid = (lo + hi) >> 1
            if array[mid] < v { lo = mid + 1 } else { hi = mid }
        }
        if lo < array.count && array[lo] == v { array.remove(at: lo) }
    }

    /// Makes `s` basic with `row`, indexing its cells.
    mutating func installRow(_ s: Int32, _ row: Row) {
        let i = Int(s)
        for sym in row.symbols { Solver.insertSorted(&columns[Int(sym)], s) }
        rows[i] = row
        isBasic[i] = true
        if kinds[i] == .external {
            // A row with references gets the next stamp (it references older rows); a reduced row
            // references nothing and never will (substitutions add only non-basic symbols): stamp
            // 0, before every row that may come to reference it.
            if row.symbols.contains(where: { isBasic[Int($0)] }) {
                nextStamp += 1
                stamp[i] = nextStamp
                stampOrder.append(s)
            } else {
                stamp[i] = 0
            }
            markDirty(s)
        }
        if kinds[i].isRestricted && row.constant < -Row.epsilon { infeasible.append(s) }
    }

    /// Makes `s` non-basic, returning its row with the cells un-indexed.
    mutating func takeRow(_ s: Int32) -> Row {
        let i = Int(s)
        var row = Row()
        swap(&row, &rows[i])
        isBasic[i] = false
        if kinds[i] == .external { markDirty(s) }
        for sym in row.symbols { Solver.removeSorted(&columns[Int(sym)], s) }
        return row
    }

    /// Replaces `s` by `row` in every row and objective that holds it. Cost: s's column.
    /// With `intoReducedRowsOnly`, only external rows that reference nothing (stamp 0) take it.
    mutating func substitute(_ s: Int32, _ row: Row, intoReducedRowsOnly: Bool = false) {
        var column: [Int32] = []
        swap(&column, &columns[Int(s)])
        if intoReducedRowsOnly {
            columns[Int(s)] = column.filter { stamp[Int($0)] != 0 }
            column = column.filter { stamp[Int($0)] == 0 }
        }
        for b in column {
            let bi = Int(b)
            let c = rows[bi].remove(s)
            scratchInserted.removeAll(keepingCapacity: true)
            scratchRemoved.removeAll(keepingCapacity: true)
            rows[bi].add(row, times: c, inserted: &scratchInserted, removed: &scratchRemoved,
                         scratchSymbols: &mergeSymbols, scratchCoefficients: &mergeCoefficients)
            for x in scratchInserted { Solver.insertSorted(&columns[Int(x)], b) }
            for x in scratchRemoved { Solver.removeSorted(&columns[Int(x)], b) }
            if kinds[bi] == .external { markDirty(b) }
            if kinds[bi].isRestricted && rows[bi].constant < -Row.epsilon { infeasible.append(b) }
        }
        if intoReducedRowsOnly { return }
        for k in objectives.indices {
            let c = objectives[k].remove(s)
            if c != 0 {
                objectives[k].add(row, times: c)
                for x in row.symbols { markCandidate(x) }
            }
        }
    }

    @inline(__always)
    mutating func markDirty(_ s: Int32) {
        if !isDirty[Int(s)] {
            isDirty[Int(s)] = true
            dirty.append(s)
        }
    }

    @inline(__always)
    mutating func markCandidate(_ s: Int32) {
        if !isCandidate[Int(s)] {
            isCandidate[Int(s)] = true
            candidates.append(s)
        }
    }

    /// The objective row index of a level, creating it (in descending order) when new.
    mutating func objectiveIndex(_ level: Double) -> Int {
        var lo = 0, hi = levelKeys.count
        while lo < hi {
            let mid = (lo + hi) >> 1
            if levelKeys[mid] > level { lo = mid + 1 } else { hi = mid }
        }
        if lo < levelKeys.count && levelKeys[lo] == level { return lo }
        levelKeys.insert(level, at: lo)
        objectives.insert(Objective(), at: lo)
        return lo
    }

    /// objective[level] += c · s (in terms of non-basic symbols).
    mutating func addToObjective(_ s: Int32, _ c: Double, level: Double) {
        let k = objectiveIndex(level)
        if isBasic[Int(s)] {
            let row = rows[Int(s)]
            objectives[k].add(row, times: c)
            for x in row.symbols { markCandidate(x) }
        } else {
            objectives[k].add(s, c)
            markCandidate(s)
        }
    }

    /// Builds the row `0 = r + markers` of a constraint, where `r` is the expression (negated for
    /// `<=`); basic externals are left as references. Fills the record's symbols and signs.
    mutating func createRow(_ record: inout ConstraintRecord, id: ConstraintID) -> Row {
        let scale: Double = record.relation == .lessOrEqual ? -1 : 1
        record.rowScale = scale
        var row = Row(constant: scale * record.expression.constant)
        for term in record.expression.terms {
            // Basic externals stay as references; `expand` resolves them when a reduced row is needed.
            row.add(term.variable.index, scale * term.coefficient)
        }
        let o = id.index
        if record.relation == .equal {
            if let level = record.level {
                let plus = newSymbol(.error, owner: o)
                let minus = newSymbol(.error, owner: o)
                row.add(plus, -1)
                row.add(minus, 1)
                record.marker = plus
                record.other = minus
                record.markerCoefficient = -1
                addToObjective(plus, 1, level: level)
                addToObjective(minus, 1, level: level)
            } else {
                let d = newSymbol(.dummy, owner: o)
                row.add(d, 1)
                record.marker = d
                record.markerCoefficient = 1
            }
        } else {
            let slack = newSymbol(.slack, owner: o)
            row.add(slack, -1)
            record.marker = slack
            record.markerCoefficient = -1
            if let level = record.level {
                let e = newSymbol(.error, owner: o)
                row.add(e, 1)
                record.other = e
                addToObjective(e, 1, level: level)
            }
        }
        return row
    }
}
