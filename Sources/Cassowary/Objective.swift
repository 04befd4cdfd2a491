/// One level of the lexicographic objective, as a sparse sorted row.
///
/// An objective level holds every error symbol of its priority (thousands in a large layout),
/// while each pivot changes only the few symbols of one short row: updates are binary-search
/// edits in place, never a merge over the whole objective, and a small session pays only for the
/// symbols its levels actually hold.
struct Objective {
    var row = Row()

    init() {}

    @inline(__always) func coefficient(_ s: Int32) -> Double { row.coefficient(s) }

    @discardableResult
    @inline(__always) mutating func remove(_ s: Int32) -> Double { row.remove(s) }

    @inline(__always) mutating func add(_ s: Int32, _ c: Double) { row.add(s, c) }

    /// `self += c · other`.
    mutating func add(_ other: Row, times c: Double) {
        row.constant += c * other.constant
        for j in other.symbols.indices { row.add(other.symbols[j], c * other.coefficients[j]) }
    }

    /// Symbols with a non-zero coefficient, ascending.
    var symbols: [Int32] { row.symbols }
}
