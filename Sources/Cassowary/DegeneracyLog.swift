/// Restricted rows whose constant `Solver.shiftMarker` moved since the last free-directions
/// stamp: with it, checking whether the set of degenerate rows changed reads those rows only.
/// Not kept while `unknown` (any other change of a row: an install, a removal, a pivot, a
/// substitution; or more shifts than symbols), when the check scans every row.
struct DegeneracyLog: Sendable {
    var shifted: [Int32] = []
    var unknown = true
}
