/// What operations cost, cumulatively; callers diff two readings.
public struct SolverStatistics: Equatable, Sendable {
    public var pivots: Int = 0
    public var rows: Int = 0
    public var cells: Int = 0
    /// Cells holding required equalities' markers (bookkeeping for removal and constant changes).
    public var dummyCells: Int = 0
    public var levels: Int = 0
    /// Shift plans made (see `Solver.setConstant(_:to:repeated:)`).
    public var shiftPlansMade: Int = 0
    /// Symbols made (variables, markers, errors, ...): one past the highest `Variable.index`.
    public var symbols: Int = 0
    /// Constraint handles given out, removed ones included. Numbers are never reused (they order
    /// every tie-break), so a long run of removals and additions grows this and `symbols`: a
    /// caller that keeps a solver for long rebuilds it when they outgrow what it holds.
    public var constraintSlots: Int = 0
}
