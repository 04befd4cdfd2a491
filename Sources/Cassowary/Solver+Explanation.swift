// Why a value is what it is (issue 31): the constraints its row depends on.
//
// At the current basis a basic variable is `constant + Σ c·s` over non-basic symbols, once its
// row's references to other basic externals are expanded. Every non-basic symbol sits at 0, so
// the value is decided by the constraints those symbols belong to: changing one's constant moves
// its marker (`shiftMarker`) and with it the value, changing any other constraint's does not.
// That set, read off the expanded row, is the explanation.

/// What decides the value of a linear expression at the current solution.
public struct Explanation: Equatable, Sendable {
    /// The constraints whose marker is in the expression's expanded row, ascending: the ones whose
    /// constant the value moves with (each holds with equality: a tight inequality, a satisfied
    /// equality, a satisfied optional constraint, or a broken one held as closely as it can be).
    public var constraints: [ConstraintID]
    /// The non-basic external variables the expression moves with: parameters nothing pins
    /// (their value, 0, is arbitrary), ascending.
    public var parameters: [Variable]
}

extension Solver {
    /// The constraints that determine `expression`'s value now (see `Explanation`).
    ///
    /// Only a constraint's *marker* counts, not its other error symbol: an optional inequality
    /// that is not tight has its slack basic, and its error, though non-basic, says nothing about
    /// the value (a change of the constraint's constant moves only the slack's row).
    public func explanation(of expression: Expression) -> Explanation {
        var row = Row(constant: expression.constant)
        for term in expression.terms where Int(term.variable.index) < tableau.slots.count {
            row.add(term.variable.index, term.coefficient)
        }
        // `expand` only writes the scratch buffers: the copy shares the tableau (copy on write)
        // and copies those alone, so the query leaves the solver as it was.
        var copy = self
        copy.expand(&row)
        var ids: [ConstraintID] = [], parameters: [Variable] = []
        for cell in row.cells {
            let s = Int(cell.symbol)
            if tableau.slots[s].kind == .external {
                parameters.append(Variable(cell.symbol))
                continue
            }
            let owner = tableau.owner[s]
            guard owner >= 0, let record = record(ConstraintID(owner)), record.marker == cell.symbol else { continue }
            ids.append(ConstraintID(owner))
        }
        return Explanation(constraints: ids.sorted(), parameters: parameters)
    }

    /// The free directions (see `freeDirections()`) along which `expression`'s value changes:
    /// it is ambiguous exactly when there is one.
    public func freeDirections(moving expression: Expression) -> [FreeDirection] {
        freeDirections().filter { d in
            var rate = 0.0
            for term in expression.terms { rate += term.coefficient * d.rate(term.variable) }
            return abs(rate) > Tolerance.zero
        }
    }
}
