import Testing
@testable import Cassowary
import TestSupport

/// The subject of a row that needs one is found without its full expansion (issue 32): only the
/// references that may reach a parameter are expanded. The choice must be the one the full
/// expansion gives (same basis, same values), and the flags that let the search skip rows must
/// stay sound through adds, removals and constant changes.
@Suite("Choosing a subject without the full expansion")
struct SubjectChoiceTests {
    typealias Spec = ReferenceInstallTests.Spec

    /// `chooseSubject`'s external choice read off the full expansion of the row `spec` would add.
    /// Nil when the row has a fresh subject (no choice is made) or its expansion no parameter.
    static func subjects(for spec: Spec, in solver: Solver, _ vars: [Variable]) -> (pruned: Int32?, full: Int32?)? {
        var probe = solver
        var record = ConstraintRecord(expression: Expression(spec.terms.map { Term(vars[$0.0], $0.1) }, constant: spec.constant),
                                      relation: spec.relation, priority: spec.priority)
        if spec.priority < Strength.required { record.level = spec.priority }
        let row = probe.createRow(&record, id: ConstraintID(Int32(probe.constraints.records.count)))
        if probe.freshSubject(row) != nil { return nil }
        let pruned = probe.parameterSubject(row).subject
        var full = row
        probe.expand(&full)
        let candidates = full.cells.filter { probe.tableau.slots[Int($0.symbol)].kind == .external }.map(\.symbol)
        let best = candidates.min { (probe.tableau.slots[Int($0)].column.count, $0) < (probe.tableau.slots[Int($1)].column.count, $1) }
        return (pruned, best)
    }

    /// A random constraint over `n` variables: two or three terms (a chain step, a sum, a
    /// difference), any relation, required or at one of a few optional levels.
    static func randomSpec(_ n: Int, _ rng: inout SeededGenerator) -> Spec {
        var terms: [(Int, Double)] = []
        for _ in 0..<Int.random(in: 1...3, using: &rng) {
            let v = Int.random(in: 0..<n, using: &rng)
            if terms.contains(where: { $0.0 == v }) { continue }
            terms.append((v, [1.0, -1.0, 2.0, 0.5].randomElement(using: &rng)!))
        }
        let relation: Relation = [.equal, .equal, .greaterOrEqual, .lessOrEqual].randomElement(using: &rng)!
        let priority = [1000.0, 1000.0, 750, 500, 250].randomElement(using: &rng)!
        return Spec(terms: terms, constant: Double(Int.random(in: -40...40, using: &rng)), relation: relation, priority: priority)
    }

    @Test("every choice made while a random system is built, edited and taken apart is the full expansion's",
          arguments: 1...16)
    func sameChoiceAsFullExpansion(seed: Int) throws {
        var rng = SeededGenerator(seed: UInt64(seed))
        // A feed (long chains, few parameters) followed by random constraints among its
        // variables (many parameters, references in every direction).
        let (feedSpecs, n) = ReferenceInstallTests.feed(cells: 12, &rng)
        var s = Solver()
        let vars = (0..<n).map { _ in s.addVariable() }
        var held: [(ConstraintID, Spec)] = []
        var choices = 0
        func add(_ spec: Spec) throws {
            if let (p, f) = Self.subjects(for: spec, in: s, vars) {
                #expect(p == f, "seed \(seed): the search chose \(String(describing: p)), the full expansion \(String(describing: f))")
                if f != nil { choices += 1 }
            }
            let r = try s.add(Expression(spec.terms.map { Term(vars[$0.0], $0.1) }, constant: spec.constant),
                              spec.relation, priority: spec.priority)
            held.append((r.id, spec))
        }
        for spec in feedSpecs { try add(spec) }
        for step in 0..<120 {
            switch Int.random(in: 0..<10, using: &rng) {
            case 0..<5:
                try add(Self.randomSpec(n, &rng))
            case 5..<7 where !held.isEmpty:
                let k = Int.random(in: 0..<held.count, using: &rng)
                try s.remove(held[k].0)
                held.remove(at: k)
            default:
                guard !held.isEmpty else { continue }
                let k = Int.random(in: 0..<held.count, using: &rng)
                try? s.setConstant(held[k].0, to: held[k].1.constant + Double(Int.random(in: -10...10, using: &rng)))
            }
            let violations = s.invariantViolations()
            #expect(violations.isEmpty, "seed \(seed) step \(step): \(violations.prefix(3))")
            if !violations.isEmpty { return }
        }
        // The scenario must exercise the choice, not only fresh subjects.
        #expect(choices > 5, "seed \(seed): \(choices) external choices")
    }

    @Test("a feed edited incrementally (removals, re-adds, constant changes) answers what a fresh build of the same constraints answers, with and without the search",
          arguments: 1...8)
    func incrementalMatchesFresh(seed: Int) throws {
        var rng = SeededGenerator(seed: UInt64(seed))
        var (specs, n) = ReferenceInstallTests.feed(cells: 40, &rng)
        var (session, vars, ids) = try ReferenceInstallTests.build(specs, variables: n, references: true)
        for _ in 0..<30 {
            let k = Int.random(in: 0..<specs.count, using: &rng)
            // Constants that keep the optimum unique: only gaps and margins change, and grow.
            if specs[k].priority == 1000 && specs[k].constant < 0 {
                specs[k].constant -= Double(Int.random(in: 0...6, using: &rng))
            }
            if Bool.random(using: &rng) {
                try session.setConstant(ids[k], to: specs[k].constant)
            } else {
                try session.remove(ids[k])
                let spec = specs[k]
                ids[k] = try session.add(Expression(spec.terms.map { Term(vars[$0.0], $0.1) }, constant: spec.constant),
                                         spec.relation, priority: spec.priority).id
            }
        }
        #expect(session.invariantViolations().isEmpty)
        let (fresh, freshVars, _) = try ReferenceInstallTests.build(specs, variables: n, references: true)
        let (old, oldVars, _) = try ReferenceInstallTests.build(specs, variables: n, references: false)
        for i in 0..<n {
            #expect(abs(session.value(vars[i]) - fresh.value(freshVars[i])) < 1e-9, "seed \(seed) variable \(i): incremental against fresh")
            #expect(abs(fresh.value(freshVars[i]) - old.value(oldVars[i])) < 1e-9, "seed \(seed) variable \(i): fresh against the full expansion")
        }
        #expect(fresh.statistics.pivots == old.statistics.pivots)
    }

    @Test("a chain hanging from a fixed root is skipped: a row below it finds its one parameter without visiting the chain")
    func fixedChainIsSkipped() throws {
        // y0 = 0; y_k = y_{k-1} + h_{k-1} + 8 with h_k = 20: every row's expansion is markers
        // only. Then `x = y_last + p` where p is a parameter (held by another row).
        var s = Solver()
        let count = 200
        let y = (0..<count).map { _ in s.addVariable() }
        let h = (0..<count).map { _ in s.addVariable() }
        try s.add(Expression([Term(y[0])]), .equal, priority: 1000)
        for k in 0..<count {
            try s.add(Expression([Term(h[k])], constant: -20), .equal, priority: 1000)
            if k > 0 { try s.add(Expression([Term(y[k]), Term(y[k - 1], -1), Term(h[k - 1], -1)], constant: -8), .equal, priority: 1000) }
        }
        for k in 0..<count { #expect(!s.tableau.slots[Int(y[k].index)].mayHoldParameters, "y\(k) is flagged") }
        let p = s.addVariable(), q = s.addVariable(), x = s.addVariable()
        try s.add(Expression([Term(q), Term(p, -1)]), .equal, priority: 1000)
        try s.add(Expression([Term(x), Term(y[count - 1], -1)], constant: -3), .equal, priority: 1000)
        // p took q = p as its fresh subject (the lower symbol): q is the parameter. x is basic
        // (fresh); x - q = 5 must choose q, skipping x's chain.
        let (subject, skipped) = s.parameterSubject(Self.row(s, [(x, 1), (q, -1)], constant: -5))
        #expect(subject == q.index)
        #expect(skipped)
        try s.add(Expression([Term(x), Term(q, -1)], constant: -5), .equal, priority: 1000)
        #expect(abs(s.value(q) - (28 * Double(count - 1) + 3 - 5)) < 1e-9)
        #expect(abs(s.value(p) - s.value(q)) < 1e-9)
        #expect(s.invariantViolations().isEmpty)
    }

    static func row(_ s: Solver, _ terms: [(Variable, Double)], constant: Double) -> Row {
        var r = Row(constant: constant)
        for (v, c) in terms { r.add(v.index, c) }
        return r
    }
}
