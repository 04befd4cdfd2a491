// What the tableau looks like, for the benchmark's `profile` case: which rows are long and whose
// they are. A pass over every row; never on a request path.

/// The rows of one kind of basic symbol: how many, their cells, the longest.
public struct RowProfile: Sendable {
    /// `external`, `external-reduced` (an external row that references no other row), `slack`,
    /// `error`, `dummy`.
    public var kind: String
    public var rows = 0
    public var cells = 0
    public var longest = 0
    /// The constraint owning the longest row's subject (markers and errors), else nil.
    public var longestOwner: ConstraintID?
}

extension Solver {
    /// Rows grouped by their subject's kind, and the objective rows' lengths.
    public func rowProfile() -> (rows: [RowProfile], objectiveCells: [Int]) {
        var byKind: [String: RowProfile] = [:]
        for i in tableau.slots.indices where tableau.slots[i].isBasic {
            let slot = tableau.slots[i]
            var kind = "\(slot.kind)"
            if slot.kind == .external && slot.stamp == 0 { kind += "-reduced" }
            var p = byKind[kind] ?? RowProfile(kind: kind)
            p.rows += 1
            p.cells += slot.row.count
            if slot.row.count > p.longest {
                p.longest = slot.row.count
                let o = tableau.owner[i]
                p.longestOwner = o >= 0 ? ConstraintID(o) : nil
            }
            byKind[kind] = p
        }
        return (byKind.values.sorted { $0.kind < $1.kind }, objectives.rows.map { $0.symbols.count })
    }
}
