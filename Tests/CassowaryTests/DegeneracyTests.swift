import Testing
@testable import Cassowary

@Suite("Degenerate rows (what decides blocked free directions)")
struct DegeneracyTests {
    @Test("a bound that pins a variable is degenerate; moving it away opens a free direction without a pivot")
    func pinnedThenFree() throws {
        var s = Solver()
        let w = s.addVariable()
        try s.add(Expression([Term(w)], constant: -100), .greaterOrEqual, priority: 1000)
        let max = try s.add(Expression([Term(w)], constant: -100), .lessOrEqual, priority: 1000)
        let pinned = s.degenerateRows()
        #expect(!pinned.isEmpty)
        #expect(s.degenerateRowsEqual(pinned))
        #expect(s.freeDirections().isEmpty)
        let pivots = s.statistics.pivots
        try s.setConstant(max.id, to: -120)
        #expect(s.statistics.pivots == pivots)
        #expect(!s.degenerateRowsEqual(pinned))
        #expect(s.degenerateRowsEqual(s.degenerateRows()))
        #expect(s.freeDirections().contains { $0.rate(w) != 0 })
    }
}
