/// Solver constraint index → position in `LayoutSystem.compiled`, for diagnostics and explain.
///
/// An array rather than a dictionary: the solver numbers its constraints densely from 0 in the
/// order they are added (`ConstraintID.index`), so a position per index costs 4 bytes where a
/// hashed entry cost about 16 with its load factor, and building it never rehashes (a 20,000-view
/// document has 119,000 constraints). Indices of removed constraints stay as holes until the next
/// rebuild, which `rebuildIfDue` bounds by `count`.
struct ConstraintPositions: Sendable {
    /// -1: no compiled position (never added, or removed).
    private var positions: [Int32] = []
    /// The indices that have a position.
    private(set) var count = 0

    init() {}

    init(minimumCapacity: Int) {
        positions.reserveCapacity(minimumCapacity)
    }

    subscript(index: Int32) -> Int32? {
        get {
            let i = Int(index)
            guard i >= 0 && i < positions.count else { return nil }
            let p = positions[i]
            return p >= 0 ? p : nil
        }
        set {
            let i = Int(index)
            guard i >= 0 else { return }
            if i >= positions.count {
                guard newValue != nil else { return }
                positions.append(contentsOf: repeatElement(-1, count: i + 1 - positions.count))
            }
            let old = positions[i]
            positions[i] = newValue ?? -1
            count += (newValue == nil ? 0 : 1) - (old >= 0 ? 1 : 0)
        }
    }
}
