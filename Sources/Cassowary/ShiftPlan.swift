/// What moving one marker changes, while the tableau's structure stays as it was when the plan
/// was made (`ShiftPlanCache.structureVersion`).
struct ShiftPlan: Sendable {
    var marker: Int32
    /// The rows holding the marker (its column, as `Cell(row, coefficient of the marker)`),
    /// restricted and external, in column order.
    var rows: [Cell]
    /// Each external whose value moves with the marker, with its rate (`Cell(variable, rate)`):
    /// the external rows of the column and every row that references one, transitively.
    var rates: [Cell]
}

/// The shift plans kept, valid for one structure of the tableau.
struct ShiftPlanCache: Sendable {
    /// Counts changes of any row's cells or of the basis (`Solver.structureChanged()`).
    var structureVersion: UInt64 = 0
    /// The `structureVersion` the plans in `list` describe; they are dropped once it differs.
    var version: UInt64 = 0
    var list: [ShiftPlan] = []
}
