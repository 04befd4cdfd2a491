// Adding a constraint's row: a fresh subject, or expansion and a chosen subject (Markowitz),
// else the artificial-variable phase; and reading a conflict off a failed row.

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
        let original = row
        // An external subject is found without the full expansion when the row reaches parameters
        // (Solver+Subject.swift), and installed with its references. When the search skipped no
        // chain, the full expansion costs little more than it did, and a short expansion is
        // cheaper installed as it is (see `referenceThreshold`): the row is handled as below.
        if installsWithReferences && original.cells.contains(where: { carriesParameters($0.symbol) }) {
            let (subject, skipped) = parameterSubject(original)
            if let subject, skipped, installWithReferences(original, subject: subject) {
                row = Row()
                return true
            }
        }
        expand(&row)
        if row.constant < 0 { row.negate() }
        guard let subject = chooseSubject(row, record) else { return false }
        // A long expansion under an external subject that rows reference: installed with its
        // references instead (the same subject, so the same basis and values), see
        // Solver+References.swift. A short one costs less installed as it is.
        if tableau.slots[Int(subject)].kind == .external && row.count > Self.referenceThreshold
            && installWithReferences(original, subject: subject) {
            row = Row()
            return true
        }
        row.solve(for: subject)
        // A restricted subject is a marker created with this row: no row holds it, but its
        // objective level does.
        // Rows that held an external subject as a parameter now reference its reduced row, which
        // references nothing (stamp 0): stamp order stays a dependency order for rows with
        // references; other reduced rows take the row, so that reduced rows never reference.
        if tableau.slots[Int(subject)].kind != .external {
            substitute(subject, row)
        } else if tableau.slots[Int(subject)].column.contains(where: { tableau.slots[Int($0)].stamp == 0 }) {
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
        let mark = tableau.slots.count
        var row = createRow(&record, id: id)
        if installWithFreshSubject(&row) || installReduced(&row, record) { return .success(()) }
        if row.symbols.allSatisfy({ tableau.slots[Int($0)].kind == .dummy }) {
            if abs(row.constant) < Tolerance.zero {
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
        for cell in row.cells where tableau.slots[Int(cell.symbol)].kind == .external {
            let cost = tableau.slots[Int(cell.symbol)].column.count
            if cost < bestCost {
                best = cell.symbol
                bestCost = cost
                if cost == 0 { break }
            }
        }
        if best >= 0 { return best }
        if tableau.slots[Int(record.marker)].kind.isPivotable && row.coefficient(record.marker) < 0 { return record.marker }
        if record.other >= 0 && tableau.slots[Int(record.other)].kind.isPivotable && row.coefficient(record.other) < 0 {
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
        objectives.keys.insert(.infinity, at: 0)
        var artificial = Objective()
        artificial.add(row, times: 1)
        objectives.rows.insert(artificial, at: 0)
        for cell in row.cells { markCandidate(cell.symbol) }
        optimize()
        let artificialObjective = objectives.rows.removeFirst()
        objectives.keys.removeFirst()
        let success = !tableau.slots[Int(art)].isBasic || abs(tableau.slots[Int(art)].row.constant) < Tolerance.feasibility
        if !success {
            let conflicts = requiredOwners(of: artificialObjective.symbols, excluding: id)
            _ = takeRow(art)
            return (false, conflicts)
        }
        if tableau.slots[Int(art)].isBasic {
            var r = takeRow(art)
            if !r.isEmpty {
                // art is 0: swap it for a pivotable symbol of its row, else (a redundant equality)
                // for a dummy, so that the row's information stays in the tableau.
                let entering = r.cells.first { tableau.slots[Int($0.symbol)].kind.isPivotable }?.symbol ?? r.cells[0].symbol
                r.solve(art, for: entering)
                substitute(entering, r)
                installRow(entering, r)
                counters.pivots += 1
            }
        }
        var column = Column()
        swap(&column, &tableau.slots[Int(art)].column)
        if !column.isEmpty { structureChanged() }
        for b in column {
            tableau.slots[Int(b)].row.remove(art)
            if tableau.slots[Int(b)].kind == .external { markDirty(b) }
        }
        for k in objectives.rows.indices { objectives.rows[k].remove(art) }
        return (true, [])
    }

    /// The held required constraints owning any of `symbols`, ascending, without `id`.
    func requiredOwners(of symbols: [Int32], excluding id: ConstraintID?) -> [ConstraintID] {
        var out: [ConstraintID] = []
        for s in symbols {
            let o = tableau.owner[Int(s)]
            guard o >= 0, o != id?.index, let r = constraints.records[Int(o)], r.level == nil else { continue }
            out.append(ConstraintID(o))
        }
        return Array(Set(out)).sorted()
    }

    func requiredOwners(inRowOf b: Int32, plus ids: [ConstraintID]) -> [ConstraintID] {
        var syms = tableau.slots[Int(b)].row.symbols
        syms.append(b)
        return Array(Set(requiredOwners(of: syms, excluding: nil) + ids)).sorted()
    }
}

/// The required constraints a failing one conflicts with.
struct ConflictList: Error {
    var ids: [ConstraintID]
    init(_ ids: [ConstraintID]) { self.ids = ids }
}
