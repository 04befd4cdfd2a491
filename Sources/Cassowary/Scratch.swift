/// Buffers the solver reuses between operations (always empty or all zero between them), so
/// that a hot edit allocates nothing.
struct Scratch: Sendable {
    /// `Row.add`'s merge buffer, and the symbols it inserted into and removed from the row.
    var merge: [Cell] = []
    var inserted: [Int32] = []
    var removed: [Cell] = []
    /// `expand`'s dense accumulator (0 where a symbol is absent) and the symbols it touched;
    /// also the shift plans' rates while one is made.
    var expansion: [Double] = []
    var touched: [Int32] = []
    /// `shiftMarker`'s lists of rows it made negative and restricted rows it shifted.
    var negative: [Int32] = []
    var shifted: [Int32] = []
    /// `raiseParameters`' and `lowerParameters`' stack of rows to visit.
    var raised: [Int32] = []
    /// `installWithReferences`' dependents of the subject, and their marks by symbol.
    var dependents: [Int32] = []
    var isDependent: [Bool] = []
}
