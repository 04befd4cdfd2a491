import Testing
import TestSupport
@testable import Cassowary

@Suite("Compaction")
struct CompactionTests {
    @Test("a compacted solver keeps its values and invariants, and later edits give bit-identical results")
    func compactThenEdit() throws {
        var rng = SeededGenerator(seed: 3)
        var a = Solver()
        let xs = (0..<40).map { _ in a.addVariable() }
        var ids: [ConstraintID] = []
        try a.add(Expression([Term(xs[0])], constant: 0), .equal, priority: 1000)
        for i in 1..<xs.count {
            let gap = Double(Int.random(in: 1...20, using: &rng))
            ids.append(try a.add(Expression([Term(xs[i]), Term(xs[i - 1], -1)], constant: -gap), .greaterOrEqual,
                                 priority: 1000).id)
            ids.append(try a.add(Expression([Term(xs[i]), Term(xs[i - 1], -1)], constant: -gap * 2), .equal,
                                 priority: Double(Int.random(in: 1...999, using: &rng))).id)
        }
        a.updateValues()
        var b = a
        b.compact()
        #expect(b.invariantViolations().isEmpty)
        #expect(xs.map { a.value($0) } == xs.map { b.value($0) })
        for step in 0..<200 {
            let id = ids.randomElement(using: &rng)!
            let c = -Double(Int.random(in: 0...60, using: &rng))
            let ra = Result { try a.setConstant(id, to: c) }
            let rb = Result { try b.setConstant(id, to: c) }
            #expect((try? ra.get()) != nil || (try? rb.get()) == nil, "step \(step)")
            if step % 50 == 0 {
                let extra = Expression([Term(xs[step % 40]), Term(xs[(step + 7) % 40], -1)], constant: 5)
                _ = try a.add(extra, .lessOrEqual, priority: 500)
                _ = try b.add(extra, .lessOrEqual, priority: 500)
            }
            a.updateValues()
            b.updateValues()
            #expect(xs.map { a.value($0) } == xs.map { b.value($0) }, "step \(step)")
        }
        #expect(b.invariantViolations().isEmpty)
    }
}
