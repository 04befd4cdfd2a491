/// One level of the lexicographic objective: a dense coefficient per symbol.
///
/// Dense, unlike rows: an objective level holds every error symbol of its priority (thousands in a
/// large layout), while each pivot changes only the few symbols of one short row. A dense array
/// makes that update O(row) instead of a merge over the whole objective.
struct Objective {
    var coefficients: [Double]
    var constant: Double = 0

    init(symbolCount: Int) { coefficients = [Double](repeating: 0, count: symbolCount) }

    @inline(__always) func coefficient(_ s: Int32) -> Double { coefficients[Int(s)] }

    @discardableResult
    @inline(__always) mutating func remove(_ s: Int32) -> Double {
        let c = coefficients[Int(s)]
        coefficients[Int(s)] = 0
        return c
    }

    @inline(__always) mutating func add(_ s: Int32, _ c: Double) {
        let v = coefficients[Int(s)] + c
        coefficients[Int(s)] = abs(v) < Row.epsilon ? 0 : v
    }

    /// `self += c · row`.
    mutating func add(_ row: Row, times c: Double) {
        constant += c * row.constant
        row.symbols.withUnsafeBufferPointer { syms in
            row.coefficients.withUnsafeBufferPointer { coefs in
                coefficients.withUnsafeMutableBufferPointer { dense in
                    for j in 0..<syms.count {
                        let i = Int(syms[j])
                        let v = dense[i] + c * coefs[j]
                        dense[i] = abs(v) < Row.epsilon ? 0 : v
                    }
                }
            }
        }
    }

    /// Symbols with a non-zero coefficient, ascending.
    var symbols: [Int32] {
        var out: [Int32] = []
        for (i, c) in coefficients.enumerated() where c != 0 { out.append(Int32(i)) }
        return out
    }
}
