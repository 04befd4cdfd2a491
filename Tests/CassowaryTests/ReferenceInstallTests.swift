import Testing
@testable import Cassowary
import TestSupport

/// Rows installed under an external subject that other rows reference keep their references
/// (issue 32) instead of being fully expanded: the same values before and after later edits,
/// and a tableau that stays as sparse as the constraints.
@Suite("Rows that keep their references")
struct ReferenceInstallTests {
    struct Spec {
        var terms: [(Int, Double)]
        var constant: Double
        var relation: Relation
        var priority: Double
    }

    /// A feed of `cells` stacked cells (y, h per view: the cell, then up to three children), in a
    /// shuffled order of the constraints within each cell: each cell's top is the previous
    /// cell's bottom, each child's top is the cell's top or the previous child's bottom plus a
    /// gap, the cell's bottom is at least each child's bottom plus a margin, children have
    /// intrinsic heights (hugging 250, compression 750), and the total height is pulled to 0 at
    /// 50, so every view's position depends on the chain of cells above it.
    static func feed(cells: Int, _ rng: inout SeededGenerator) -> (specs: [Spec], variables: Int) {
        var specs: [Spec] = []
        var n = 0
        func view() -> (y: Int, h: Int) { n += 2; return (n - 2, n - 1) }
        let root = view()
        specs.append(Spec(terms: [(root.y, 1)], constant: 0, relation: .equal, priority: 1000))
        var previous = root
        var optional: [Spec] = []
        for _ in 0..<cells {
            let cell = view()
            var local: [Spec] = []
            // cell.top == previous.bottom (the first: root.top)
            local.append(previous == root ? Spec(terms: [(cell.y, 1), (root.y, -1)], constant: 0, relation: .equal, priority: 1000)
                         : Spec(terms: [(cell.y, 1), (previous.y, -1), (previous.h, -1)], constant: 0, relation: .equal, priority: 1000))
            var above = cell
            for k in 0..<Int.random(in: 1...3, using: &rng) {
                let child = view()
                let gap = Double(Int.random(in: 0...12, using: &rng))
                // child.top == cell.top + gap, or the previous child's bottom + gap
                local.append(k == 0 ? Spec(terms: [(child.y, 1), (cell.y, -1)], constant: -gap, relation: .equal, priority: 1000)
                             : Spec(terms: [(child.y, 1), (above.y, -1), (above.h, -1)], constant: -gap, relation: .equal, priority: 1000))
                // cell.bottom >= child.bottom + margin
                local.append(Spec(terms: [(cell.y, 1), (cell.h, 1), (child.y, -1), (child.h, -1)],
                                  constant: -Double(Int.random(in: 0...12, using: &rng)), relation: .greaterOrEqual, priority: 1000))
                let size = Double(Int.random(in: 10...60, using: &rng))
                optional.append(Spec(terms: [(child.h, 1)], constant: -size, relation: .lessOrEqual, priority: 250))
                optional.append(Spec(terms: [(child.h, 1)], constant: -size, relation: .greaterOrEqual, priority: 750))
                above = child
            }
            local.shuffle(using: &rng)
            specs += local
            previous = cell
        }
        // root.bottom == the last cell's bottom; root.height pulled to 0 at 50.
        specs.append(Spec(terms: [(root.y, 1), (root.h, 1), (previous.y, -1), (previous.h, -1)], constant: 0, relation: .equal, priority: 1000))
        specs.append(Spec(terms: [(root.h, 1)], constant: 0, relation: .equal, priority: 50))
        return (specs + optional, n)
    }

    static func build(_ specs: [Spec], variables n: Int, references: Bool) throws -> (Solver, [Variable], [ConstraintID]) {
        var s = Solver()
        s.installsWithReferences = references
        let vars = (0..<n).map { _ in s.addVariable() }
        var ids: [ConstraintID] = []
        for spec in specs {
            ids.append(try s.add(Expression(spec.terms.map { Term(vars[$0.0], $0.1) }, constant: spec.constant),
                                 spec.relation, priority: spec.priority).id)
        }
        return (s, vars, ids)
    }

    @Test("a random feed gives the same values with and without kept references, before and after the same edits",
          arguments: 1...12)
    func sameValues(seed: Int) throws {
        var rng = SeededGenerator(seed: UInt64(seed))
        let (specs, n) = Self.feed(cells: 30, &rng)
        var (kept, keptVars, keptIDs) = try Self.build(specs, variables: n, references: true)
        var (expanded, expandedVars, expandedIDs) = try Self.build(specs, variables: n, references: false)
        func compare(_ step: String) {
            #expect(kept.invariantViolations().isEmpty, "seed \(seed) \(step): \(kept.invariantViolations().prefix(3))")
            for i in 0..<n {
                #expect(abs(kept.value(keptVars[i]) - expanded.value(expandedVars[i])) < 1e-9, "seed \(seed) \(step) variable \(i)")
            }
        }
        compare("build")
        for step in 0..<40 {
            let k = Int.random(in: 0..<specs.count, using: &rng)
            let constant = specs[k].constant + Double(Int.random(in: -8...8, using: &rng))
            let repeated = Bool.random(using: &rng)
            var keptFailed = false, expandedFailed = false
            do { try kept.setConstant(keptIDs[k], to: constant, repeated: repeated) } catch { keptFailed = true }
            do { try expanded.setConstant(expandedIDs[k], to: constant, repeated: repeated) } catch { expandedFailed = true }
            #expect(keptFailed == expandedFailed, "seed \(seed) step \(step)")
            if step % 10 == 9 {
                // A removal and the same constraint added back: the rows that kept references
                // are re-parameterised like any other.
                try kept.remove(keptIDs[k])
                try expanded.remove(expandedIDs[k])
                let spec = specs[k]
                keptIDs[k] = try kept.add(Expression(spec.terms.map { Term(keptVars[$0.0], $0.1) }, constant: spec.constant),
                                          spec.relation, priority: spec.priority).id
                expandedIDs[k] = try expanded.add(Expression(spec.terms.map { Term(expandedVars[$0.0], $0.1) }, constant: spec.constant),
                                                  spec.relation, priority: spec.priority).id
            }
            compare("step \(step)")
        }
    }

    @Test("a feed of 400 cells stays as sparse as its constraints: no row as long as the chain above it")
    func staysSparse() throws {
        var rng = SeededGenerator(seed: 7)
        let (specs, n) = Self.feed(cells: 400, &rng)
        let (kept, _, _) = try Self.build(specs, variables: n, references: true)
        let (expanded, _, _) = try Self.build(specs, variables: n, references: false)
        let k = kept.currentStatistics, e = expanded.currentStatistics
        let perRow = Double(k.cells) / Double(k.rows)
        // Fully expanded, the rows below the chain grow with it (about 380 cells a row here);
        // kept, about 8: the constraints' own few, and the one row and error and objective
        // that sum the whole chain (the root's height).
        #expect(perRow < 12, "\(perRow) cells a row with kept references")
        #expect(e.cells > 20 * k.cells, "\(e.cells) cells fully expanded, \(k.cells) kept")
        #expect(kept.statistics.pivots == expanded.statistics.pivots)
    }
}
