/// One level of the lexicographic objective: a coefficient per symbol number (0 where absent).
///
/// An objective level holds every error symbol of its priority (thousands in a large layout), and
/// every pivot removes the entering symbol and adds the leaving row's few symbols. A sorted sparse
/// row paid a memmove of the whole level for each of those edits (the largest cost of a 5,000-view
/// grid resize, with hundreds of dual pivots); indexed by symbol, each is O(1), and so is every
/// reduced-cost lookup of the ratio tests. The array grows only up to the highest symbol the level
/// has held, 8 bytes a symbol.
struct Objective {
    var coefficients: [Double] = []
    var constant: Double = 0

    init() {}

    @inline(__always)
    func coefficient(_ s: Int32) -> Double {
        let i = Int(s)
        return i < coefficients.count ? coefficients[i] : 0
    }

    /// Removes `s`, returning its coefficient (0 if absent).
    @discardableResult
    @inline(__always)
    mutating func remove(_ s: Int32) -> Double {
        let i = Int(s)
        guard i < coefficients.count else { return 0 }
        let c = coefficients[i]
        coefficients[i] = 0
        return c
    }

    /// Adds `c·s`; as in a `Row`, a coefficient that falls below `Row.epsilon` is dropped.
    @inline(__always)
    mutating func add(_ s: Int32, _ c: Double) {
        let i = Int(s)
        if i >= coefficients.count {
            if abs(c) < Row.epsilon { return }
            coefficients.append(contentsOf: repeatElement(0, count: i + 1 - coefficients.count))
        }
        let v = coefficients[i] + c
        coefficients[i] = abs(v) < Row.epsilon ? 0 : v
    }

    /// Makes room for symbols up to `s` (zeros): `Solver.addRow` then adds through the buffer.
    mutating func reserve(through s: Int32) {
        let n = Int(s) + 1
        if coefficients.count < n { coefficients.append(contentsOf: repeatElement(0, count: n - coefficients.count)) }
    }

    /// `self += c · other`.
    mutating func add(_ other: Row, times c: Double) {
        constant += c * other.constant
        for cell in other.cells { add(cell.symbol, c * cell.coefficient) }
    }

    /// Drops the entries of symbols numbered `count` and above (which must be 0).
    mutating func truncate(to count: Int) {
        if coefficients.count > count { coefficients.removeLast(coefficients.count - count) }
    }

    /// Symbols with a non-zero coefficient, ascending.
    var symbols: [Int32] {
        coefficients.indices.filter { coefficients[$0] != 0 }.map { Int32($0) }
    }
}
