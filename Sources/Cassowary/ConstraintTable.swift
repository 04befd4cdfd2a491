/// The constraints a solver holds, by `ConstraintID.index` (nil once removed), with the edit
/// variables' constraints and how many are broken: the marker bookkeeping of the paper (each
/// record names its marker and other error symbol).
struct ConstraintTable: Sendable {
    var records: [ConstraintRecord?] = []
    var edits: [Variable: ConstraintID] = [:]
    /// How many held constraints are broken (so that asking is O(1) when none are).
    var brokenCount = 0
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

/// How a change of a constraint's constant moves its marker: `marker_old = marker_new + shift`
/// with `shift = rowScale · delta / markerCoefficient` (the record's fields, without the rest of
/// the record).
struct MarkerShift {
    var marker: Int32
    var rowScale: Double
    var markerCoefficient: Double
}
