/// The external variables' values, recomputed lazily: an operation lists the external rows it
/// changed in `dirty`, and `Solver.updateValues()` recomputes those and their dependents in
/// stamp (dependency) order. Also the log of which values moved, for a caller that redraws
/// only what moved.
struct ValueCache: Sendable {
    /// Values by symbol number (0 for every non-external symbol).
    var values: [Double] = []
    /// External rows changed since the last `updateValues()`, each once (`isDirty`).
    var dirty: [Int32] = []
    var isDirty: [Bool] = []
    /// `updateValues()`'s marks, one bit per `Tableau.stampOrder` entry: the rows its sweep
    /// recomputes (all clear between calls).
    var pendingStamps: [UInt64] = []
    /// Symbols whose value changed since the last `Solver.movedVariables(resetting: true)` (a
    /// symbol may repeat); not kept while `movedUnknown` (no reset yet, or more changes than
    /// symbols).
    var movedLog: [Int32] = []
    var movedUnknown = true

    /// Some value is out of date: `values` must not be read directly.
    var isStale: Bool { !dirty.isEmpty }
}
