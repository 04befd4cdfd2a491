import Testing
@testable import Cassowary
import TestSupport

/// `Column`: up to three entries inline, more spilled into an array that stays until `compact()`.
@Suite("Column: inline entries, spilled ones, the same contents as an array")
struct ColumnTests {
    @Test("random appends, swap-removals, writes and clears read back as an array does")
    func sameAsAnArray() {
        var rng = SeededGenerator(seed: 31)
        for round in 0..<200 {
            var column = Column()
            var model: [Int32] = []
            for step in 0..<60 {
                switch Int.random(in: 0..<10, using: &rng) {
                case 0..<5:
                    let b = Int32.random(in: 0..<1000, using: &rng)
                    column.append(b)
                    model.append(b)
                case 5..<7 where !model.isEmpty:
                    // What `Solver.unindex` does: the last entry moves into the freed slot.
                    let slot = Int.random(in: 0..<model.count, using: &rng)
                    let last = column.removeLast()
                    #expect(last == model.removeLast())
                    if slot < model.count {
                        column[slot] = last
                        model[slot] = last
                    }
                case 7 where !model.isEmpty:
                    let slot = Int.random(in: 0..<model.count, using: &rng)
                    let b = Int32.random(in: 0..<1000, using: &rng)
                    column[slot] = b
                    model[slot] = b
                case 8 where Int.random(in: 0..<4, using: &rng) == 0:
                    column.removeAll()
                    model.removeAll()
                case 9:
                    let wasInline = column.isInline
                    column.compact()
                    // Compaction brings a short spilled column back inline, and spills nothing.
                    #expect(column.isInline == (wasInline || model.count <= Column.inlineCapacity))
                default:
                    break
                }
                #expect(column.count == model.count, "round \(round) step \(step)")
                #expect(column.isEmpty == model.isEmpty)
                #expect(Array(column) == model, "round \(round) step \(step)")
                #expect(column.withEntries { Array($0) } == model)
                for i in model.indices { #expect(column[i] == model[i]) }
                if model.count > Column.inlineCapacity { #expect(!column.isInline) }
            }
        }
    }

    @Test("a spilled column stays spilled when it shrinks (no allocation per flip) until compacted")
    func staysSpilled() {
        var column = Column([1, 2, 3])
        #expect(column.isInline)
        column.append(4)
        #expect(!column.isInline)
        column.removeLast()
        column.removeLast()
        #expect(!column.isInline && Array(column) == [1, 2])
        column.removeAll()
        #expect(!column.isInline && column.isEmpty)
        column.append(9)
        column.compact()
        #expect(column.isInline && Array(column) == [9])
        #expect(Column([5, 6]) == Column([5, 6]) && Column([5, 6]) != Column([6, 5]))
    }
}
