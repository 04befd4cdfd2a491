/// An incremental Cassowary solver (Badros, Borning & Stuckey, "The Cassowary linear arithmetic
/// constraint solving algorithm", 2001) with Auto Layout's rules:
///
/// - **Strict priority levels.** Required (1000) constraints hold; each optional level in (0, 1000)
///   has its own objective row and levels are optimised lexicographically, highest first, so one
///   constraint at 751 beats any number at 750. Within a level, errors add up.
/// - **In-place constant change** through the constraint's marker and the dual simplex.
/// - **Conflicts.** A required constraint that cannot hold reports the required constraints it
///   conflicts with, and is kept *broken* (its error minimised at a level above every optional
///   one) or rejected, leaving the solver exactly as before.
/// - **Sparse and deterministic.** Rows are sorted sparse vectors; a column index (symbol → rows
///   holding it) makes substitution cost the column, not the tableau; every choice breaks ties by
///   symbol number (creation order), never by hash or address, so the same operations give
///   bit-identical values in every process.
///
/// `Solver` is a value: copying it is O(1) (copy-on-write storage), which is how callers keep a
/// snapshot to roll back to.
///
/// The public operations are kiwi's (add/remove a constraint, edit variables, values), plus a
/// constant change in place, the variables that moved, the broken constraints, the free
/// directions and statistics; docs/solver.md lists them and maps the paper's names to the code.
/// The state lives in a few internal types, one per concern; tolerances are in `Tolerance`.
public struct Solver: Sendable {
    /// The rows, the column index and what is kept per symbol: the tableau itself.
    var tableau = Tableau()
    /// One objective row per priority level in use, highest first: the simplex optimises them in order.
    var objectives = ObjectiveLevels()
    /// Each constraint's expression, marker and error symbols: how to find its rows again to
    /// remove it or change its constant.
    var constraints = ConstraintTable()
    /// Rows and symbols the next simplex pass must look at, so a pass does not scan the tableau.
    var simplex = SimplexQueues()
    /// The external variables' values and which changed: values are recomputed lazily, only
    /// for the rows an operation touched.
    var cache = ValueCache()
    /// Which restricted rows a constant change moved, so the ambiguity check can skip a rescan.
    var degeneracy = DegeneracyLog()
    /// Precomputed effects of constant changes that repeat (a root's size, an edit variable).
    var plans = ShiftPlanCache()
    /// Buffers reused across operations, so a hot edit allocates nothing.
    var scratch = Scratch()
    /// Cumulative counts (pivots, plans made), read through `statistics`.
    var counters = SolverStatistics()
    /// Rows under an external subject that other rows reference keep their own references
    /// (`installWithReferences`); off, they are installed fully expanded, as before issue 32: the
    /// differential tests build both ways.
    var installsWithReferences = true

    public init() {}

    // MARK: Variables

    /// Creates an external (unrestricted) variable. Its value is 0 until constrained.
    public mutating func addVariable() -> Variable {
        Variable(newSymbol(.external))
    }

    /// The variable's current value: its row's constant when basic, else 0.
    @inline(__always)
    public func value(_ v: Variable) -> Double {
        value(ofIndex: v.index)
    }

    /// The value of the variable whose `index` is `index` (as `value(_:)`).
    @inline(__always)
    public func value(ofIndex index: Int32) -> Double {
        cache.isStale ? evaluate(index) : cache.values[Int(index)]
    }

    /// Runs `body` with the value of every variable, indexed by `Variable.index`, when the
    /// values are current; nil (without running it) when an edit left them stale, for which
    /// `value(_:)` evaluates. For callers reading many values without a call each.
    public func withCurrentValues<R>(_ body: (UnsafeBufferPointer<Double>) -> R) -> R? {
        guard !cache.isStale else { return nil }
        return cache.values.withUnsafeBufferPointer(body)
    }

    /// Symbols made so far (variables, markers, errors): one past the highest `Variable.index`.
    var variableCount: Int { tableau.slots.count }

    // MARK: Constraints

    /// Adds `expression REL 0` at `priority` (1000 = required, (0, 1000) = optional).
    ///
    /// - Throws: `SolverError.invalidArgument` for a priority outside (0, 1000] or a non-finite
    ///   number; `SolverError.unsatisfiable` when the constraint is required, cannot hold together
    ///   with the required constraints in place, and `onConflict` is `.reject` (the solver is then
    ///   exactly as before the call).
    /// - Returns: the handle, and for a broken constraint (`.keepBroken`) the required constraints
    ///   it conflicts with.
    @discardableResult
    public mutating func add(_ expression: Expression, _ relation: Relation, priority: Double,
                             onConflict: ConflictPolicy = .keepBroken) throws(SolverError) -> AddResult {
        guard Strength.isValid(priority) else {
            throw .invalidArgument("priority \(priority) is outside (0, 1000]")
        }
        guard expression.constant.isFinite, expression.terms.allSatisfy({ $0.coefficient.isFinite }) else {
            throw .invalidArgument("non-finite coefficient or constant")
        }
        let id = ConstraintID(Int32(constraints.records.count))
        var record = ConstraintRecord(expression: expression, relation: relation, priority: priority)
        if priority < Strength.required {
            record.level = priority
            insertOptional(&record, id: id)
            constraints.records.append(record)
            optimize()
            return AddResult(id: id, isBroken: false, conflicts: [])
        }
        switch insertRequired(&record, id: id, policy: onConflict) {
        case .success:
            constraints.records.append(record)
            optimize()
            return AddResult(id: id, isBroken: false, conflicts: [])
        case .failure(let list):
            let conflicts = list.ids
            if onConflict == .reject { throw .unsatisfiable(conflicts: conflicts) }
            // Keep it broken: the same relation, held at the level above every optional one.
            record = ConstraintRecord(expression: expression, relation: relation, priority: priority)
            record.level = Strength.brokenLevel
            record.conflicts = conflicts
            insertOptional(&record, id: id)
            constraints.brokenCount += 1
            constraints.records.append(record)
            optimize()
            return AddResult(id: id, isBroken: true, conflicts: conflicts)
        }
    }

    /// Removes a constraint.
    /// - Throws: `SolverError.unknownConstraint` when `id` is not held by this solver.
    public mutating func remove(_ id: ConstraintID) throws(SolverError) {
        guard let record = record(id) else { throw .unknownConstraint }
        if isBroken(id) { constraints.brokenCount -= 1 }
        constraints.records[Int(id.index)] = nil
        removeEffects(record)
        optimize()
    }

    /// Changes the constant of a constraint's expression in place: the marker's column tells which
    /// rows hold the constant; the dual simplex restores feasibility (no remove and re-add).
    ///
    /// - Throws: `SolverError.unknownConstraint`; `SolverError.unsatisfiable` when the new constant
    ///   makes the required constraints infeasible (the constant is then put back and the solver
    ///   holds the previous solution).
    ///
    /// With `repeated`, the caller expects this constant to change again and again (a root's size,
    /// an edit variable): the effect of moving the constraint's marker is kept as a plan (see
    /// `ShiftPlan`) while the tableau's structure does not change, and later changes move the
    /// rows and values through it instead of reading every row that depends on the marker.
    public mutating func setConstant(_ id: ConstraintID, to constant: Double, repeated: Bool = false) throws(SolverError) {
        let i = Int(id.index)
        guard i >= 0, i < constraints.records.count else { throw .unknownConstraint }
        guard constant.isFinite else { throw .invalidArgument("non-finite constant") }
        let old: Double, shift: MarkerShift
        switch Self.changeConstant(of: &constraints.records[i], to: constant) {
        case .noRecord: throw .unknownConstraint
        case .unchanged: return
        case .changed(let o, let s): (old, shift) = (o, s)
        }
        let delta = constant - old
        var failing = shiftMarker(shift, by: delta, planned: repeated)
        if failing == nil { failing = dualOptimize() }
        if let failing {
            let conflicts = requiredOwners(inRowOf: failing, plus: [id])
            _ = Self.changeConstant(of: &constraints.records[i], to: old)
            _ = shiftMarker(shift, by: -delta)
            // The failed dual pass may have pivoted other rows negative: queue every one.
            collectInfeasibleRows()
            _ = dualOptimize()
            optimize()
            throw .unsatisfiable(conflicts: conflicts)
        }
    }

    private enum ConstantChange {
        case noRecord, unchanged
        case changed(old: Double, shift: MarkerShift)
    }

    /// Sets the record's expression constant, reading and writing the record in place: a copy
    /// (which the array's subscript makes) would retain its expression's terms and its conflict
    /// list, cold memory on an edit of a session that has not been edited for a while.
    private static func changeConstant(of record: inout ConstraintRecord?, to constant: Double) -> ConstantChange {
        guard let old = record?.expression.constant else { return .noRecord }
        if old == constant { return .unchanged }
        record?.expression.constant = constant
        return .changed(old: old, shift: record!.markerShift)
    }

    /// The constant of a constraint's expression.
    func constant(of id: ConstraintID) -> Double? { record(id)?.expression.constant }

    func contains(_ id: ConstraintID) -> Bool { record(id) != nil }

    // MARK: Conflicts

    /// True when `id` is a required constraint that could not hold and is kept broken.
    func isBroken(_ id: ConstraintID) -> Bool {
        guard let r = record(id) else { return false }
        return r.priority >= Strength.required && r.level == Strength.brokenLevel
    }

    /// How many held constraints are broken: O(1), so a caller can skip `brokenConstraints`.
    public var brokenCount: Int { constraints.brokenCount }

    /// Broken constraints, ascending, with the required constraints each conflicts with.
    public var brokenConstraints: [(id: ConstraintID, conflicts: [ConstraintID])] {
        var out: [(ConstraintID, [ConstraintID])] = []
        for (i, r) in constraints.records.enumerated() {
            if let r, r.priority >= Strength.required, r.level == Strength.brokenLevel {
                out.append((ConstraintID(Int32(i)), r.conflicts))
            }
        }
        return out
    }

    // MARK: Edit variables

    /// Adds an edit constraint `v == value` at `priority` (required allowed), starting at v's value.
    /// - Throws: `SolverError.duplicateEditVariable`, `SolverError.invalidArgument`.
    public mutating func addEditVariable(_ v: Variable, priority: Double) throws(SolverError) {
        guard constraints.edits[v] == nil else { throw .duplicateEditVariable }
        let r = try add(Expression([Term(v)], constant: -value(v)), .equal, priority: priority)
        constraints.edits[v] = r.id
    }

    /// Suggests a value for an edit variable (a constant change of its edit constraint).
    /// - Throws: `SolverError.unknownEditVariable`; `SolverError.unsatisfiable` as `setConstant`.
    public mutating func suggestValue(_ v: Variable, _ value: Double) throws(SolverError) {
        guard let id = constraints.edits[v] else { throw .unknownEditVariable }
        try setConstant(id, to: -value, repeated: true)
    }

    /// - Throws: `SolverError.unknownEditVariable`.
    public mutating func removeEditVariable(_ v: Variable) throws(SolverError) {
        guard let id = constraints.edits.removeValue(forKey: v) else { throw .unknownEditVariable }
        try remove(id)
    }

    func hasEditVariable(_ v: Variable) -> Bool { constraints.edits[v] != nil }

    // MARK: Statistics

    /// The cumulative counts (pivots, shift plans made) and the symbols and constraint slots in
    /// use; O(1), so a caller can read the pivot count around every edit. The tableau's size
    /// (`rows`, `cells`, `dummyCells`, `levels`) is left 0: see `currentStatistics`.
    public var statistics: SolverStatistics {
        var s = counters
        s.symbols = tableau.slots.count
        s.constraintSlots = constraints.records.count
        return s
    }

    /// `statistics` with the tableau's size now: rows, cells, dummy cells and levels (a pass
    /// over every row).
    public var currentStatistics: SolverStatistics {
        var s = statistics
        s.rows = 0
        s.cells = 0
        for i in tableau.slots.indices where tableau.slots[i].isBasic {
            s.rows += 1
            s.cells += tableau.slots[i].row.count
            for cell in tableau.slots[i].row.cells where tableau.slots[Int(cell.symbol)].kind == .dummy { s.dummyCells += 1 }
        }
        s.levels = objectives.keys.count
        return s
    }

    func record(_ id: ConstraintID) -> ConstraintRecord? {
        let i = Int(id.index)
        guard i >= 0, i < constraints.records.count else { return nil }
        return constraints.records[i]
    }
}
