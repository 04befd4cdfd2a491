// Constant changes and removal, both through the constraint's marker symbol.

extension Solver {
    /// Applies a change of `delta` to the constraint's expression constant: the marker is renamed
    /// `marker_old = marker_new + shift`, which moves the constant of every row holding it.
    /// With `planned`, a non-basic marker's rows and the values that depend on them are moved
    /// through its `ShiftPlan` (made now if the tableau changed since the last one), without
    /// reading the rows' cells or sweeping the values.
    /// - Returns: a basic dummy (a redundant required equality) that became non-zero, if any.
    mutating func shiftMarker(_ change: MarkerShift, by delta: Double, planned: Bool = false) -> Int32? {
        let shift = change.rowScale * delta / change.markerCoefficient
        let m = Int(change.marker)
        var inconsistent: Int32? = nil
        simplex.infeasible.removeAll()
        if tableau.slots[m].isBasic {
            tableau.slots[m].row.constant -= shift
            if tableau.slots[m].kind.isRestricted { noteShifted(CollectionOfOne(change.marker)) }
            if !checkRestricted(change.marker) { inconsistent = change.marker }
        } else {
            // A root resize shifts thousands of rows: the loop runs over raw buffers, and collects
            // what it finds for the bookkeeping below.
            let marker = change.marker
            // Scratch lists kept by the solver (two allocations per constant change otherwise).
            var negative: [Int32] = [], shifted: [Int32] = []
            swap(&negative, &scratch.negative)
            swap(&shifted, &scratch.shifted)
            negative.removeAll(keepingCapacity: true)
            shifted.removeAll(keepingCapacity: true)
            defer {
                swap(&negative, &scratch.negative)
                swap(&shifted, &scratch.shifted)
            }
            let first = cache.dirty.count
            let plan = planned ? shiftPlan(for: marker) : nil
            tableau.slots.withUnsafeMutableBufferPointer { slots in
                // An external row is listed for the sweep, unless a plan moves the values.
                @inline(__always)
                func move(_ b: Int32, by amount: Double) {
                    let bi = Int(b)
                    slots[bi].row.constant += amount
                    switch slots[bi].kind {
                    case .external: if plan == nil { cache.dirty.append(b) }
                    case .dummy:
                        // The lowest inconsistent dummy row names the conflict (columns are
                        // unordered).
                        if abs(slots[bi].row.constant) >= Tolerance.feasibility && (inconsistent == nil || b < inconsistent!) {
                            inconsistent = b
                        }
                    case .slack, .error:
                        shifted.append(b)
                        if slots[bi].row.constant < -Tolerance.zero { negative.append(b) }
                    }
                }
                if let plan {
                    plans.list[plan].rows.withUnsafeBufferPointer { rows in
                        for cell in rows { move(cell.symbol, by: cell.coefficient * shift) }
                    }
                } else {
                    for b in slots[m].column { move(b, by: slots[Int(b)].row.coefficientNearFront(marker) * shift) }
                }
            }
            if let plan { applyRates(of: plan, shift: shift) }
            // Each row is once in the column, so only a row already dirty can be listed twice.
            var k = first
            for j in first..<cache.dirty.count {
                let b = cache.dirty[j]
                if !cache.isDirty[Int(b)] { cache.isDirty[Int(b)] = true; cache.dirty[k] = b; k += 1 }
            }
            cache.dirty.removeLast(cache.dirty.count - k)
            for b in negative { pushInfeasible(b) }
            noteShifted(shifted)
        }
        return inconsistent
    }

    /// Logs restricted rows whose constant moved (for `degenerateRowsEqual`), until the log would
    /// be longer than a scan of every symbol.
    private mutating func noteShifted(_ rows: some Collection<Int32>) {
        if degeneracy.unknown { return }
        if degeneracy.shifted.count + rows.count > tableau.slots.count {
            degeneracy.unknown = true
            degeneracy.shifted.removeAll(keepingCapacity: true)
        } else {
            degeneracy.shifted.append(contentsOf: rows)
        }
    }

    @inline(__always)
    mutating func checkRestricted(_ b: Int32) -> Bool {
        let bi = Int(b)
        switch tableau.slots[bi].kind {
        case .external: return true
        case .dummy: return abs(tableau.slots[bi].row.constant) < Tolerance.feasibility
        case .slack, .error:
            if tableau.slots[bi].row.constant < -Tolerance.zero { pushInfeasible(b) }
            return true
        }
    }

    /// Removes a constraint's errors from its objective level and its row from the tableau.
    mutating func removeEffects(_ record: ConstraintRecord) {
        if let level = record.level {
            for e in [record.marker, record.other] where e >= 0 && tableau.slots[Int(e)].kind == .error {
                addToObjective(e, -1, level: level)
            }
        }
        let m = record.marker
        if tableau.slots[Int(m)].isBasic {
            _ = takeRow(m)
        } else if let leaving = markerLeavingRow(m) {
            var row = takeRow(leaving)
            row.solve(leaving, for: m)
            substitute(m, row)
            counters.pivots += 1
        } else if !tableau.slots[Int(m)].column.isEmpty {
            // Only external rows hold the marker. A row may hold it directly and through its
            // references too: pivot on the first whose full (expanded) coefficient is non-zero.
            var pivoted = false
            for x in tableau.slots[Int(m)].column.sorted() {
                var full = tableau.slots[Int(x)].row
                expand(&full)
                guard full.coefficient(m) != 0 else { continue }
                _ = takeRow(x)
                full.solve(x, for: m)
                substitute(m, full)
                counters.pivots += 1
                pivoted = true
                break
            }
            if !pivoted {
                // Every row's net dependence on the marker is zero: its direct cells cancel.
                var column = Column()
                swap(&column, &tableau.slots[Int(m)].column)
                structureChanged()
                for b in column {
                    tableau.slots[Int(b)].row.remove(m)
                    markDirty(b)
                }
            }
        }
        if record.other >= 0 && tableau.slots[Int(record.other)].isBasic { _ = takeRow(record.other) }
        for k in objectives.rows.indices {
            objectives.rows[k].remove(m)
            if record.other >= 0 { objectives.rows[k].remove(record.other) }
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
        if let d = tableau.slots[Int(m)].column.lazy.filter({ self.tableau.slots[Int($0)].kind == .dummy }).min() { return d }
        for b in tableau.slots[Int(m)].column where tableau.slots[Int(b)].kind != .external {
            let bi = Int(b)
            let c = tableau.slots[bi].row.coefficient(m)
            if c < 0 {
                let r = -tableau.slots[bi].row.constant / c
                if r < r1 || (r == r1 && b < first) { r1 = r; first = b }
            } else {
                let r = tableau.slots[bi].row.constant / c
                if r < r2 || (r == r2 && b < second) { r2 = r; second = b }
            }
        }
        if first >= 0 { return first }
        return second >= 0 ? second : nil
    }
}
