/// A row of the tableau: `basic = constant + Σ coefficient·symbol` over non-basic symbols, or an
/// objective. Cells are kept sorted by symbol number, so merges are linear and every traversal is
/// deterministic (no hash order).
struct Row {
    var symbols: [Int32] = []
    var coefficients: [Double] = []
    var constant: Double = 0

    /// Coefficients this close to zero are dropped: float noise must not keep a symbol in a row
    /// (it would block pivots and grow rows).
    static let epsilon = 1e-9

    init(constant: Double = 0) { self.constant = constant }

    var count: Int { symbols.count }
    var isEmpty: Bool { symbols.isEmpty }

    /// Position of `s` among the cells, or where it would be inserted (negative − 1).
    @inline(__always)
    func search(_ s: Int32) -> Int {
        var lo = 0
        var hi = symbols.count - 1
        while lo <= hi {
            let mid = (lo + hi) >> 1
            let v = symbols[mid]
            if v < s { lo = mid + 1 } else if v > s { hi = mid - 1 } else { return mid }
        }
        return -(lo + 1)
    }

    @inline(__always)
    func coefficient(_ s: Int32) -> Double {
        let i = search(s)
        return i >= 0 ? coefficients[i] : 0
    }

    /// Adds `c·s`; returns +1 when the symbol was inserted, -1 when it cancelled out, 0 otherwise.
    @discardableResult
    mutating func add(_ s: Int32, _ c: Double) -> Int {
        let i = search(s)
        if i >= 0 {
            let v = coefficients[i] + c
            if abs(v) < Row.epsilon {
                symbols.remove(at: i)
                coefficients.remove(at: i)
                return -1
            }
            coefficients[i] = v
            return 0
        }
        if abs(c) < Row.epsilon { return 0 }
        let at = -(i + 1)
        symbols.insert(s, at: at)
        coefficients.insert(c, at: at)
        return 1
    }

    /// Removes the cell of `s`, returning its coefficient (0 if absent).
    @discardableResult
    mutating func remove(_ s: Int32) -> Double {
        let i = search(s)
        guard i >= 0 else { return 0 }
        let c = coefficients[i]
        symbols.remove(at: i)
        coefficients.remove(at: i)
        return c
    }

    mutating func negate() {
        constant = -constant
        for i in coefficients.indices { coefficients[i] = -coefficients[i] }
    }

    /// Turns `0 = constant + Σ` (which holds `s`) into `s = …`.
    mutating func solve(for s: Int32) {
        let c = remove(s)
        let k = -1.0 / c
        constant *= k
        for i in coefficients.indices { coefficients[i] *= k }
    }

    /// Turns `lhs = constant + Σ` (which holds `rhs`) into `rhs = …` (with `lhs` as a cell).
    mutating func solve(_ lhs: Int32, for rhs: Int32) {
        add(lhs, -1)
        solve(for: rhs)
    }

    /// `self += c · other`, a linear merge of the sorted cells. Symbols that enter or leave the row
    /// are appended to `inserted` / `removed`, so the caller can keep its column index.
    mutating func add(_ other: Row, times c: Double, inserted: inout [Int32], removed: inout [Int32]) {
        var s: [Int32] = []
        var k: [Double] = []
        add(other, times: c, inserted: &inserted, removed: &removed, scratchSymbols: &s, scratchCoefficients: &k)
    }

    /// As above, merging into caller-owned buffers that are swapped with the row's storage, so a
    /// merge allocates nothing once the buffers have grown.
    mutating func add(_ other: Row, times c: Double, inserted: inout [Int32], removed: inout [Int32],
                      scratchSymbols outS: inout [Int32], scratchCoefficients outC: inout [Double]) {
        constant += c * other.constant
        let n = symbols.count
        let m = other.symbols.count
        if m == 0 { return }
        if m * 8 < n {
            // A short row into a long one: binary-search updates beat copying the long row.
            for j in 0..<m {
                let s = other.symbols[j]
                switch add(s, c * other.coefficients[j]) {
                case 1: inserted.append(s)
                case -1: removed.append(s)
                default: break
                }
            }
            return
        }
        outS.removeAll(keepingCapacity: true)
        outC.removeAll(keepingCapacity: true)
        outS.reserveCapacity(n + m)
        outC.reserveCapacity(n + m)
        symbols.withUnsafeBufferPointer { aS in
            coefficients.withUnsafeBufferPointer { aC in
                other.symbols.withUnsafeBufferPointer { bS in
                    other.coefficients.withUnsafeBufferPointer { bC in
                        var i = 0
                        var j = 0
                        while i < n || j < m {
                            if j == m || (i < n && aS[i] < bS[j]) {
                                outS.append(aS[i]); outC.append(aC[i]); i += 1
                            } else if i == n || bS[j] < aS[i] {
                                let v = c * bC[j]
                                if abs(v) >= Row.epsilon {
                                    outS.append(bS[j]); outC.append(v); inserted.append(bS[j])
                                }
                                j += 1
                            } else {
                                let v = aC[i] + c * bC[j]
                                if abs(v) >= Row.epsilon {
                                    outS.append(aS[i]); outC.append(v)
                                } else {
                                    removed.append(aS[i])
                                }
                                i += 1; j += 1
                            }
                        }
                    }
                }
            }
        }
        swap(&symbols, &outS)
        swap(&coefficients, &outC)
    }
}
