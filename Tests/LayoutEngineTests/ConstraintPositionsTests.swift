import Testing
@testable import LayoutEngine

@Suite("Constraint positions")
struct ConstraintPositionsTests {
    @Test("positions set out of order read back, holes and removed indices read nil, count follows")
    func setAndRemove() {
        var p = ConstraintPositions()
        #expect(p[0] == nil && p[-1] == nil && p.count == 0)
        p[5] = 12
        p[1] = 0
        #expect(p[5] == 12 && p[1] == 0 && p[3] == nil && p[6] == nil)
        #expect(p.count == 2)
        p[5] = 7
        #expect(p[5] == 7 && p.count == 2, "replacing keeps the count")
        p[1] = nil
        p[40] = nil
        #expect(p[1] == nil && p[40] == nil && p.count == 1)
    }
}
