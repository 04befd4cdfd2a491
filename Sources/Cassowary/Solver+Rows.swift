// Tableau bookkeeping: symbols, installing and taking rows, the column index, substitution,
// and building a constraint's row.

extension Solver {
    mutating func newSymbol(_ kind: SymbolKind, owner id: Int32 = -1) -> Int32 {
        let s = Int32(tableau.slots.count)
        tableau.slots.append(SymbolSlot(kind: kind))
        tableau.status.append(SymbolStatus(kind: kind, isBasic: false))
        tableau.owner.append(id)
        simplex.isCandidate.append(false)
        cache.values.append(0)
        cache.isDirty.append(false)
        return s
    }

    /// Drops symbols created after `count` (they must be in no row, column or objective).
    mutating func truncateSymbols(to count: Int) {
        let n = tableau.slots.count - count
        guard n > 0 else { return }
        structureChanged()
        tableau.slots.removeLast(n)
        tableau.status.removeLast(n)
        tableau.owner.removeLast(n); simplex.isCandidate.removeLast(n)
        cache.values.removeLast(n); cache.isDirty.removeLast(n)
        for k in objectives.rows.indices { objectives.rows[k].truncate(to: count) }
        cache.dirty.removeAll { Int($0) >= count }
        simplex.candidates.removeAll { Int($0) >= count }
    }

    /// Sets the basis flag in the slot and in `tableau.status`, which must agree.
    @inline(__always)
    mutating func setBasic(_ i: Int, _ basic: Bool) {
        tableau.slots[i].isBasic = basic
        tableau.status[i] = SymbolStatus(kind: tableau.slots[i].kind, isBasic: basic)
    }

    /// Adds basic row `b` to the column of `cells[j]`'s symbol, recording the slot in the cell.
    @inline(__always)
    mutating func index(_ b: Int32, cell j: Int) {
        let sym = Int(tableau.slots[Int(b)].row.cells[j].symbol)
        tableau.slots[Int(b)].row.cells[j].slot = Int32(tableau.slots[sym].column.count)
        tableau.slots[sym].column.append(b)
    }

    /// Removes the entry at `slot` from the column of `s` in O(1): the column's last entry moves
    /// into the slot and its row's cell learns the new slot. Columns are therefore unordered;
    /// every decision that reads one breaks ties by symbol number explicitly (Bland's rule needs
    /// it), so column order never changes a result.
    @inline(__always)
    mutating func unindex(_ s: Int32, slot: Int32) {
        let si = Int(s)
        let last = tableau.slots[si].column.removeLast()
        if Int(slot) < tableau.slots[si].column.count {
            tableau.slots[si].column[Int(slot)] = last
            let j = tableau.slots[Int(last)].row.search(s)
            tableau.slots[Int(last)].row.cells[j].slot = slot
        }
    }

    /// Makes `s` basic with `row`, indexing its cells.
    mutating func installRow(_ s: Int32, _ row: consuming Row) {
        let i = Int(s)
        structureChanged()
        // Indexed before it is stored: writing the slots through `slots[i].row` while the parameter
        // still holds the buffer would copy the row.
        for j in row.cells.indices {
            let sym = Int(row.cells[j].symbol)
            row.cells[j].slot = Int32(tableau.slots[sym].column.count)
            tableau.slots[sym].column.append(s)
        }
        tableau.slots[i].row = row
        setBasic(i, true)
        if tableau.slots[i].kind == .external {
            tableau.slots[i].mayHoldParameters = tableau.slots[i].row.cells.contains { carriesParameters($0.symbol) }
            // A parameter that became basic: the rows that held it may hold none now.
            if !tableau.slots[i].mayHoldParameters && !tableau.slots[i].column.isEmpty { lowerParameters(holdersOf: s) }
            // A row with references gets the next stamp (it references older rows); a reduced row
            // references nothing and never will (substitutions add only non-basic symbols): stamp
            // 0, before every row that may come to reference it.
            if tableau.slots[i].row.cells.contains(where: { tableau.slots[Int($0.symbol)].isBasic }) {
                tableau.nextStamp += 1
                tableau.slots[i].stamp = tableau.nextStamp
                tableau.stampOrder.append(s)
            } else {
                tableau.slots[i].stamp = 0
            }
            markDirty(s)
        }
        if tableau.slots[i].kind.isRestricted && tableau.slots[i].row.constant < -Tolerance.zero { pushInfeasible(s) }
    }

    /// Makes `s` non-basic, returning its row with the cells un-indexed.
    mutating func takeRow(_ s: Int32) -> Row {
        let i = Int(s)
        structureChanged()
        var row = Row()
        swap(&row, &tableau.slots[i].row)
        setBasic(i, false)
        if tableau.slots[i].kind == .external {
            markDirty(s)
            // The rows that reference it now hold a parameter.
            for b in tableau.slots[i].column { raiseParameters(b) }
        }
        for j in row.cells.indices {
            unindex(row.cells[j].symbol, slot: row.cells[j].slot)
            row.cells[j].slot = -1
        }
        return row
    }

    /// Replaces `s` by `row` in every row and objective that holds it. Cost: s's column.
    /// With `intoReducedRowsOnly`, only external rows that reference nothing (stamp 0) take it.
    mutating func substitute(_ s: Int32, _ row: Row, intoReducedRowsOnly: Bool = false) {
        structureChanged()
        var column = Column()
        swap(&column, &tableau.slots[Int(s)].column)
        if intoReducedRowsOnly {
            // The rows that keep `s` as a reference are re-indexed (their slots change).
            for b in column where tableau.slots[Int(b)].stamp != 0 { index(b, cell: tableau.slots[Int(b)].row.search(s)) }
            column = Column(column.filter { tableau.slots[Int($0)].stamp == 0 })
        }
        let carries = row.cells.contains { carriesParameters($0.symbol) }
        for b in column {
            let bi = Int(b)
            if carries { raiseParameters(b) }
            // The cell's slot needs no update: s's column is being emptied.
            let c = tableau.slots[bi].row.remove(s)
            scratch.inserted.removeAll(keepingCapacity: true)
            scratch.removed.removeAll(keepingCapacity: true)
            tableau.slots[bi].row.add(row, times: c, inserted: &scratch.inserted, removed: &scratch.removed, scratch: &scratch.merge)
            for cell in scratch.removed { unindex(cell.symbol, slot: cell.slot) }
            if scratch.inserted.count * 8 < tableau.slots[bi].row.count {
                // A few new cells in a long row (a short row merged into a long one): find them.
                for x in scratch.inserted { index(b, cell: tableau.slots[bi].row.search(x)) }
            } else if !scratch.inserted.isEmpty {
                // The new cells are the ones without a slot yet.
                for j in tableau.slots[bi].row.cells.indices where tableau.slots[bi].row.cells[j].slot < 0 { index(b, cell: j) }
            }
            if tableau.slots[bi].kind == .external { markDirty(b) }
            if tableau.slots[bi].kind.isRestricted && tableau.slots[bi].row.constant < -Tolerance.zero { pushInfeasible(b) }
        }
        // `s` is basic now and its column empty; a spilled column's storage is kept for when it
        // leaves again (the dual simplex flips the same symbols back and forth).
        if !intoReducedRowsOnly && tableau.slots[Int(s)].column.isEmpty {
            column.removeAll()
            swap(&column, &tableau.slots[Int(s)].column)
        }
        if intoReducedRowsOnly { return }
        for k in objectives.rows.indices {
            let c = objectives.rows[k].remove(s)
            if c != 0 { addRow(row, times: c, toObjective: k) }
        }
    }

    /// Queues a restricted row whose constant went negative for the dual simplex.
    @inline(__always)
    mutating func pushInfeasible(_ b: Int32) { simplex.infeasible.push(b) }

    @inline(__always)
    mutating func markDirty(_ s: Int32) {
        if !cache.isDirty[Int(s)] {
            cache.isDirty[Int(s)] = true
            cache.dirty.append(s)
        }
    }

    /// objective[k] += c · row. Only pivotable symbols become candidates (nothing else can enter).
    /// Dummies keep their coefficients: removing a required equality pivots its marker in and
    /// substitutes it in the objective too.
    mutating func addRow(_ row: Row, times c: Double, toObjective k: Int) {
        objectives.rows[k].add(row, times: c)
        for cell in row.cells { markCandidate(cell.symbol) }
    }

    @inline(__always)
    mutating func markCandidate(_ s: Int32) {
        if !simplex.isCandidate[Int(s)] && tableau.slots[Int(s)].kind.isPivotable {
            simplex.isCandidate[Int(s)] = true
            simplex.candidates.append(s)
        }
    }

    /// The objective row index of a level, creating it (in descending order) when new.
    mutating func objectiveIndex(_ level: Double) -> Int {
        var lo = 0, hi = objectives.keys.count
        while lo < hi {
            let mid = (lo + hi) >> 1
            if objectives.keys[mid] > level { lo = mid + 1 } else { hi = mid }
        }
        if lo < objectives.keys.count && objectives.keys[lo] == level { return lo }
        objectives.keys.insert(level, at: lo)
        objectives.rows.insert(Objective(), at: lo)
        return lo
    }

    /// objective[level] += c · s (in terms of non-basic symbols).
    mutating func addToObjective(_ s: Int32, _ c: Double, level: Double) {
        let k = objectiveIndex(level)
        if tableau.slots[Int(s)].isBasic {
            addRow(tableau.slots[Int(s)].row, times: c, toObjective: k)
        } else {
            objectives.rows[k].add(s, c)
            markCandidate(s)
        }
    }

    /// Builds the row `0 = r + markers` of a constraint, where `r` is the expression (negated for
    /// `<=`); basic externals are left as references. Fills the record's symbols and signs.
    mutating func createRow(_ record: inout ConstraintRecord, id: ConstraintID) -> Row {
        let scale: Double = record.relation == .lessOrEqual ? -1 : 1
        record.rowScale = scale
        var row = Row(constant: scale * record.expression.constant)
        row.cells.reserveCapacity(record.expression.terms.count + 2)
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
