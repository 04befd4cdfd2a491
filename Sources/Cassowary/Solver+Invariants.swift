// Internal consistency checks, used by the tests after every operation.

extension Solver {
    /// Describes every broken invariant of the tableau (empty when consistent): rows hold only
    /// non-basic symbols, the column index matches the rows, restricted rows are feasible and hold
    /// no external symbol, objectives hold only non-basic symbols.
    func invariantViolations() -> [String] {
        var out: [String] = []
        var expected = [[Int32]](repeating: [], count: kinds.count)
        for i in isBasic.indices where isBasic[i] {
            let row = rows[i]
            if kinds[i].isRestricted && kinds[i] != .dummy && row.constant < -1e-7 {
                out.append("restricted row \(i) is infeasible: \(row.constant)")
            }
            if kinds[i] == .dummy {
                if abs(row.constant) > 1e-7 { out.append("dummy row \(i) is not 0: \(row.constant)") }
                if row.symbols.contains(where: { kinds[Int($0)] != .dummy }) {
                    out.append("dummy row \(i) holds a non-dummy symbol")
                }
            }
            for (k, s) in row.symbols.enumerated() {
                if isBasic[Int(s)] { out.append("row \(i) holds basic symbol \(s)") }
                if kinds[i].isRestricted && kinds[Int(s)] == .external {
                    out.append("restricted row \(i) holds external \(s)")
                }
                if k > 0 && row.symbols[k - 1] >= s { out.append("row \(i) is not sorted") }
                expected[Int(s)].append(Int32(i))
            }
        }
        for s in columns.indices where columns[s] != expected[s] {
            out.append("column \(s) is \(columns[s]), rows say \(expected[s])")
        }
        for (k, objective) in objectives.enumerated() {
            for s in objective.symbols where isBasic[Int(s)] {
                out.append("objective \(k) holds basic symbol \(s)")
            }
        }
        return out
    }
}
