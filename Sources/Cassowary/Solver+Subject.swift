// Choosing an external subject without expanding the whole row (issue 32).
//
// `chooseSubject` takes, among the externals of a row's full expansion, the one with the shortest
// column. Those externals are *parameters* (non-basic externals): a full expansion holds no basic
// symbol. In a form or a feed the full expansion of a row below the stacked chain holds every
// marker of the chain above it but one or two parameters, so expanding it only to find them made
// the build quadratic (the row is then installed with its references anyway, see
// Solver+References.swift). Each basic external row therefore carries a flag,
// `mayHoldParameters`: false only when its expansion certainly holds no parameter. The search
// below expands only flagged rows: it reaches every parameter of the full expansion, through the
// same rows in the same order, so it finds the same candidates and the same subject.
//
// The flag is a sound over-approximation, kept so by three rules: a row installed gets it exactly
// from its cells (a parameter, or a reference to a flagged row); a row that takes a substitution
// carrying a parameter or a flagged reference is raised; when an external leaves the basis, the
// rows that reference it are raised. Raising propagates to the rows that reference the raised row
// and stops at rows already flagged. A flagged row that holds no parameter only makes the search
// visit it, but flags must also come down: a document's required equalities are added before its
// optional constraints, and until those make its sizes basic, every section of a form holds
// parameters, so every row of the chain below the first section is flagged; the search would walk
// the whole chain for each optional row. So when a parameter becomes basic with an unflagged row,
// the rows that held it are recomputed from their cells, and those that come down pass it on to
// theirs: it stops at the first row that still holds a parameter (in a form, the next section).

extension Solver {
    /// `s` is a parameter, or a basic external whose expansion may hold one.
    @inline(__always)
    func carriesParameters(_ s: Int32) -> Bool {
        let status = tableau.status[Int(s)]
        guard status.kind == .external else { return false }
        return !status.isBasic || tableau.slots[Int(s)].mayHoldParameters
    }

    /// Flags basic external row `b` (and the rows that reference it, transitively) as possibly
    /// holding a parameter.
    mutating func raiseParameters(_ b: Int32) {
        guard tableau.status[Int(b)] == SymbolStatus(kind: .external, isBasic: true),
              !tableau.slots[Int(b)].mayHoldParameters else { return }
        var stack: [Int32] = []
        swap(&stack, &scratch.raised)
        stack.removeAll(keepingCapacity: true)
        tableau.slots[Int(b)].mayHoldParameters = true
        stack.append(b)
        while let y = stack.popLast() {
            // Only external rows reference an external (restricted rows are reduced).
            for h in tableau.slots[Int(y)].column where !tableau.slots[Int(h)].mayHoldParameters {
                tableau.slots[Int(h)].mayHoldParameters = true
                stack.append(h)
            }
        }
        swap(&stack, &scratch.raised)
    }

    /// Recomputes the flags of the rows that hold `s` (just made basic, unflagged) from their
    /// cells, and of the rows that hold each one that comes down. Each recomputation reads
    /// flags that are sound, so the result is.
    mutating func lowerParameters(holdersOf s: Int32) {
        var stack: [Int32] = []
        swap(&stack, &scratch.raised)
        stack.removeAll(keepingCapacity: true)
        stack.append(contentsOf: tableau.slots[Int(s)].column)
        while let h = stack.popLast() {
            let hi = Int(h)
            guard tableau.slots[hi].mayHoldParameters, tableau.status[hi] == SymbolStatus(kind: .external, isBasic: true),
                  !tableau.slots[hi].row.cells.contains(where: { carriesParameters($0.symbol) }) else { continue }
            tableau.slots[hi].mayHoldParameters = false
            stack.append(contentsOf: tableau.slots[hi].column)
        }
        swap(&stack, &scratch.raised)
    }

    /// The external subject `chooseSubject` takes from the full expansion of `row`, found by
    /// expanding only the references flagged `mayHoldParameters`.
    ///
    /// The parameters' coefficients are summed as `expand` sums them: newest reference first,
    /// each dropped below `Tolerance.zero` the same way. Every row through which a parameter
    /// reaches the expansion is flagged (it holds the parameter or a flagged reference), so the
    /// rows skipped contribute no parameter, and a parameter cancels here exactly when it cancels
    /// there. (Only references of equal stamp, i.e. rows without references, may be summed in
    /// another order: that changes a coefficient by rounding, not whether it is above
    /// `Tolerance.zero`.)
    /// - Returns: the subject (nil when the expansion holds no parameter), and whether a
    ///   reference left unexpanded references rows itself (a chain: false, and the full expansion
    ///   costs at most the skipped rows' own cells more than this search).
    mutating func parameterSubject(_ row: Row) -> (subject: Int32?, skipped: Bool) {
        growExpansion()
        var touched: [Int32] = []
        swap(&touched, &scratch.touched)
        touched.removeAll(keepingCapacity: true)
        let skipped = accumulate(row, scope: .parameters, touched: &touched).skippedChain
        // What is left non-zero are parameters (every reference was zeroed when expanded).
        // The shortest column, ties to the lowest symbol: `chooseSubject`'s order.
        var best: Int32 = -1
        var bestCost = Int.max
        for s in touched where scratch.expansion[Int(s)] != 0 {
            scratch.expansion[Int(s)] = 0
            let cost = tableau.slots[Int(s)].column.count
            if cost < bestCost || (cost == bestCost && s < best) {
                best = s
                bestCost = cost
            }
        }
        swap(&touched, &scratch.touched)
        return (best >= 0 ? best : nil, skipped)
    }
}
