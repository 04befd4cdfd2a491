import Testing
@testable import Cassowary
import TestSupport

/// `movedVariables(resetting:)`: what a caller that redraws only what moved reads.
@Suite("Moved variables")
struct MovedVariablesTests {
    @Test("unknown before the first reset; then exactly the values updateValues changed, until the next reset")
    func record() throws {
        var s = Solver()
        let x = s.addVariable(), y = s.addVariable(), z = s.addVariable()
        let bound = try s.add(expr([(x, 1)], -10), .equal, priority: 1000)
        try s.add(expr([(y, 1), (x, -1)], -5), .equal, priority: 1000)     // y = x + 5
        try s.add(expr([(z, 1)], -7), .equal, priority: 1000)              // z = 7, independent
        s.updateValues()
        let beforeReset = s.movedVariables(resetting: false)
        #expect(beforeReset == nil, "a new solver does not know what moved")
        let atReset = s.movedVariables(resetting: true)
        #expect(atReset == nil)
        let afterReset = s.movedVariables(resetting: false)
        #expect(afterReset == [])

        try s.setConstant(bound.id, to: -20)
        // Not brought up to date yet: nothing counted.
        let stale = s.movedVariables(resetting: false)
        #expect(stale == [])
        s.updateValues()
        let answer = s.movedVariables(resetting: false)
        let moved = try #require(answer)
        #expect(Set(moved) == [x.index, y.index], "\(moved)")
        #expect(s.value(x) == 20 && s.value(y) == 25 && s.value(z) == 7)
        // Reading without a reset leaves the record; a reset answers it once more and clears it.
        let again = s.movedVariables(resetting: false)
        #expect(again.map(Set.init) == [x.index, y.index])
        let last = s.movedVariables(resetting: true)
        #expect(last.map(Set.init) == [x.index, y.index])
        let cleared = s.movedVariables(resetting: false)
        #expect(cleared == [])
    }

    @Test("statistics count symbols and constraint slots in O(1); removed constraints keep their slot")
    func statistics() throws {
        var s = Solver()
        let x = s.addVariable()
        #expect(s.statistics.symbols == 1 && s.statistics.constraintSlots == 0)
        let a = try s.add(expr([(x, 1)], -10), .greaterOrEqual, priority: 1000)
        try s.add(expr([(x, 1)], -12), .equal, priority: 500)
        #expect(s.statistics.constraintSlots == 2)
        // x, a slack, and two errors.
        #expect(s.statistics.symbols == 4)
        try s.remove(a.id)
        #expect(s.statistics.constraintSlots == 2 && s.liveConstraints == 1)
        #expect(s.currentStatistics.pivots == s.statistics.pivots && s.currentStatistics.rows > 0)
    }
}
