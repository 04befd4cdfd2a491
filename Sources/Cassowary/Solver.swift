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
/// Tolerances: coefficients with magnitude below 1e-9 are dropped from rows; a restricted row is
/// infeasible below -1e-9; the objective's reduced costs are compared with 1e-9.
public struct Solver: Sendable {
    // Symbols, indexed by symbol number.
    /// Each symbol's kind, row, column and install stamp (see `SymbolSlot`).
    var slots: [SymbolSlot] = []
    /// Each symbol's kind and basis flag again, one byte each (see `SymbolStatus`), for the scans
    /// over every symbol; kept equal to `slots` by `setBasic(_:_:)` and `newSymbol`.
    var status: [SymbolStatus] = []
    /// The constraint a marker or error symbol belongs to (-1 for externals and artificials).
    var owner: [Int32] = []

    /// Objective levels, highest priority first, and one objective row per level.
    var levelKeys: [Double] = []
    var objectives: [Objective] = []

    var records: [ConstraintRecord?] = []
    var edits: [Variable: ConstraintID] = [:]

    /// Restricted basic rows whose constant went negative (for the dual simplex).
    var infeasible = RowQueue()
    /// Non-basic symbols whose reduced cost may have turned negative (for the primal simplex).
    var candidates: [Int32] = []
    var isCandidate: [Bool] = []

    /// The next install stamp (see `SymbolSlot.stamp`).
    var nextStamp: Int32 = 0
    /// The symbol installed with each stamp (stamp k at index k - 1): a dependency order of the
    /// external rows (entries whose symbol was re-installed or left the basis are skipped).
    var stampOrder: [Int32] = []
    /// Values of the external variables; `dirty` lists the external rows changed since the last
    /// `updateValues()` (their values and their dependents' are recomputed, in stamp order).
    var values: [Double] = []
    var dirty: [Int32] = []
    var isDirty: [Bool] = []
    /// `updateValues()`'s marks, one bit per `stampOrder` entry: the rows its sweep recomputes
    /// (all clear between calls).
    var pendingStamps: [UInt64] = []
    var valuesStale: Bool { !dirty.isEmpty }
    /// Symbols whose value `updateValues()` changed since `clearMoved()` (a symbol may repeat);
    /// not kept while `movedUnknown` (a new solver, or more changes than symbols).
    var movedLog: [Int32] = []
    var movedUnknown = true
    /// Restricted rows whose constant `shiftMarker` moved since `markDegeneracyBaseline()`; not
    /// kept while `shiftedUnknown` (any other change of a row: an install, a removal, a pivot, a
    /// substitution; or more shifts than symbols).
    var shiftedRestricted: [Int32] = []
    var shiftedUnknown = true
    /// Counts changes of any row's cells or of the basis (`structureChanged()`); the plans in
    /// `shiftPlans` describe the tableau at `shiftPlansVersion` and are dropped once it differs.
    var structureVersion: UInt64 = 0
    var shiftPlansVersion: UInt64 = 0
    var shiftPlans: [ShiftPlan] = []

    var mergeCells: [Cell] = []
    /// `expand`'s dense accumulator (0 where a symbol is absent) and the symbols it touched.
    var expansion: [Double] = []
    var expansionTouched: [Int32] = []
    var scratchInserted: [Int32] = []
    /// `shiftMarker`'s lists of rows it made negative and restricted rows it shifted.
    var scratchNegative: [Int32] = []
    var scratchShifted: [Int32] = []
    var scratchRemoved: [Cell] = []

    public internal(set) var statistics = SolverStatistics()
    /// How many held constraints are broken (so that asking is O(1) when none are).
    public internal(set) var brokenCount = 0

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
        valuesStale ? evaluate(index) : values[Int(index)]
    }

    /// Runs `body` with the value of every variable, indexed by `Variable.index`, when the
    /// values are current; nil (without running it) when an edit left them stale, for which
    /// `value(_:)` evaluates. For callers reading many values without a call each.
    public func withCurrentValues<R>(_ body: (UnsafeBufferPointer<Double>) -> R) -> R? {
        guard !valuesStale else { return nil }
        return values.withUnsafeBufferPointer(body)
    }

    public var variableCount: Int { slots.count }

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
        let id = ConstraintID(Int32(records.count))
        var record = ConstraintRecord(expression: expression, relation: relation, priority: priority)
        if priority < Strength.required {
            record.level = priority
            insertOptional(&record, id: id)
            records.append(record)
            optimize()
            return AddResult(id: id, isBroken: false, conflicts: [])
        }
        switch insertRequired(&record, id: id, policy: onConflict) {
        case .success:
            records.append(record)
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
            brokenCount += 1
            records.append(record)
            optimize()
            return AddResult(id: id, isBroken: true, conflicts: conflicts)
        }
    }

    /// Removes a constraint.
    /// - Throws: `SolverError.unknownConstraint` when `id` is not held by this solver.
    public mutating func remove(_ id: ConstraintID) throws(SolverError) {
        guard let record = record(id) else { throw .unknownConstraint }
        if isBroken(id) { brokenCount -= 1 }
        records[Int(id.index)] = nil
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
        guard i >= 0, i < records.count else { throw .unknownConstraint }
        guard constant.isFinite else { throw .invalidArgument("non-finite constant") }
        let old: Double, shift: MarkerShift
        switch Self.changeConstant(of: &records[i], to: constant) {
        case .noRecord: throw .unknownConstraint
        case .unchanged: return
        case .changed(let o, let s): (old, shift) = (o, s)
        }
        let delta = constant - old
        var failing = shiftMarker(shift, by: delta, planned: repeated)
        if failing == nil { failing = dualOptimize() }
        if let failing {
            let conflicts = requiredOwners(inRowOf: failing, plus: [id])
            _ = Self.changeConstant(of: &records[i], to: old)
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
    public func constant(of id: ConstraintID) -> Double? { record(id)?.expression.constant }

    public func contains(_ id: ConstraintID) -> Bool { record(id) != nil }

    /// True when `id` is a required constraint that could not hold and is kept broken.
    public func isBroken(_ id: ConstraintID) -> Bool {
        guard let r = record(id) else { return false }
        return r.priority >= Strength.required && r.level == Strength.brokenLevel
    }

    /// Broken constraints, ascending, with the required constraints each conflicts with.
    public var brokenConstraints: [(id: ConstraintID, conflicts: [ConstraintID])] {
        var out: [(ConstraintID, [ConstraintID])] = []
        for (i, r) in records.enumerated() {
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
        guard edits[v] == nil else { throw .duplicateEditVariable }
        let r = try add(Expression([Term(v)], constant: -value(v)), .equal, priority: priority)
        edits[v] = r.id
    }

    /// Suggests a value for an edit variable (a constant change of its edit constraint).
    /// - Throws: `SolverError.unknownEditVariable`; `SolverError.unsatisfiable` as `setConstant`.
    public mutating func suggestValue(_ v: Variable, _ value: Double) throws(SolverError) {
        guard let id = edits[v] else { throw .unknownEditVariable }
        try setConstant(id, to: -value, repeated: true)
    }

    /// - Throws: `SolverError.unknownEditVariable`.
    public mutating func removeEditVariable(_ v: Variable) throws(SolverError) {
        guard let id = edits.removeValue(forKey: v) else { throw .unknownEditVariable }
        try remove(id)
    }

    public func hasEditVariable(_ v: Variable) -> Bool { edits[v] != nil }

    /// Rows and cells in the tableau now, with the cumulative pivot count.
    public var currentStatistics: SolverStatistics {
        var s = statistics
        s.rows = 0
        s.cells = 0
        for i in slots.indices where slots[i].isBasic {
            s.rows += 1
            s.cells += slots[i].row.count
            for cell in slots[i].row.cells where slots[Int(cell.symbol)].kind == .dummy { s.dummyCells += 1 }
        }
        s.levels = levelKeys.count
        return s
    }

    func record(_ id: ConstraintID) -> ConstraintRecord? {
        let i = Int(id.index)
        guard i >= 0, i < records.count else { return nil }
        return records[i]
    }
}

/// What the solver keeps per constraint.
struct ConstraintRecord: Sendable {
    var expression: Expression
    var relation: Relation
    /// As asked; 1000 = required.
    var priority: Double
    /// The objective level of its errors: nil while required and held; the priority for optional
    /// constraints; `Strength.brokenLevel` for a broken required one.
    var level: Double?
    /// The marker symbol (dummy, slack or positive error) and the other error symbol (or -1).
    var marker: Int32 = -1
    var other: Int32 = -1
    /// The marker's coefficient in the row built from the constraint (before any sign flip).
    var markerCoefficient: Double = 1
    /// +1, or -1 for `<=` (the row is built from the negated expression, as `>= 0`).
    var rowScale: Double = 1
    var conflicts: [ConstraintID] = []

    /// What a change of the expression's constant needs (see `Solver.shiftMarker`).
    var markerShift: MarkerShift {
        MarkerShift(marker: marker, rowScale: rowScale, markerCoefficient: markerCoefficient)
    }

    init(expression: Expression, relation: Relation, priority: Double) {
        self.expression = expression
        self.relation = relation
        self.priority = priority
    }
}

/// What the solver keeps per symbol, side by side: the value sweep reads a row's constant, cells
/// and column and the stamps of the rows that reference it; the marker shift each row's kind and
/// constant. One record is one or two cache lines where an array per field was one each, under
/// load all cold.
///
/// The fields are declared (and so laid out) in the order the hot loops need them: the row, the
/// stamp and the kind in the first 24 bytes, the column after. An array's elements start 32
/// bytes into its allocation, so every other 48-byte slot crosses a cache line at byte 32: the
/// marker shift (row and kind) and the sweep's dependents (stamp) then still read one line.
struct SymbolSlot: Sendable {
    /// The symbol's row: meaningful only while the symbol is basic.
    var row = Row()
    /// When a basic external row was installed: rows reference only rows installed before them
    /// (except after a removal re-parameterises a variable), so expanding the newest first lets
    /// shared references cancel early. 0: a reduced row, or not basic.
    var stamp: Int32 = 0
    var kind: SymbolKind
    var isBasic = false
    /// The basic symbols whose rows hold this one, in no particular order (each cell records its
    /// slot, so a row leaves a column in O(1)); short ones inline (see `Column`).
    var column = Column()

    init(kind: SymbolKind) { self.kind = kind }
}

/// A symbol's kind and whether it is basic, in one byte: a copy of `SymbolSlot.kind` and
/// `.isBasic`. The ambiguity check and the degeneracy scans visit every symbol to pick the few
/// they need (non-basic candidates, basic restricted rows); reading that from 48-byte slots made
/// a scan of a 50-view form ~470 cache lines, under load nearly all misses, where this is ~10.
struct SymbolStatus: Equatable, Sendable {
    private var raw: UInt8

    init(kind: SymbolKind, isBasic: Bool) { raw = kind.rawValue | (isBasic ? 0x80 : 0) }

    @inline(__always) var kind: SymbolKind { SymbolKind(rawValue: raw & 0x7f)! }
    @inline(__always) var isBasic: Bool { raw & 0x80 != 0 }

    /// A basic slack or error row: one that can be degenerate (see `Solver.isDegenerate`).
    @inline(__always) var isBasicSlackOrError: Bool {
        raw == 0x80 | SymbolKind.slack.rawValue || raw == 0x80 | SymbolKind.error.rawValue
    }
}

/// How a change of a constraint's constant moves its marker: `marker_old = marker_new + shift`
/// with `shift = rowScale · delta / markerCoefficient` (the record's fields, without the rest of
/// the record).
struct MarkerShift {
    var marker: Int32
    var rowScale: Double
    var markerCoefficient: Double
}
