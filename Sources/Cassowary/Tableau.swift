/// The tableau: one record per symbol (its row while basic, its column, its kind), indexed by
/// symbol number, plus the install order of the external rows. Kept together because every
/// pivot and substitution reads and writes these side by side.
struct Tableau: Sendable {
    /// Each symbol's kind, row, column and install stamp (see `SymbolSlot`).
    var slots: [SymbolSlot] = []
    /// Each symbol's kind and basis flag again, one byte each (see `SymbolStatus`), for the scans
    /// over every symbol; kept equal to `slots` by `Solver.setBasic(_:_:)` and `Solver.newSymbol`.
    var status: [SymbolStatus] = []
    /// The constraint a marker or error symbol belongs to (-1 for externals and artificials).
    var owner: [Int32] = []
    /// The next install stamp (see `SymbolSlot.stamp`).
    var nextStamp: Int32 = 0
    /// The symbol installed with each stamp (stamp k at index k - 1): a dependency order of the
    /// external rows (entries whose symbol was re-installed or left the basis are skipped).
    var stampOrder: [Int32] = []
}

/// What the solver keeps per symbol, side by side: the value sweep reads a row's constant, cells
/// and column and the stamps of the rows that reference it; the marker shift each row's kind and
/// constant. One record is one or two cache lines where an array per field was one each, under
/// load all cold.
///
/// The fields are declared (and so laid out) in the order the hot loops need them: the row, the
/// stamp and the kind in the first 24 bytes, the column after. An array's elements start 32
/// bytes into its allocation, so every other 48-byte slot crosses a cache line at byte 32: the
/// marker shift (row and kind) and the sweep's dependents (stamp) then still read one line.
struct SymbolSlot: Sendable {
    /// The symbol's row: meaningful only while the symbol is basic.
    var row = Row()
    /// When a basic external row was installed: rows reference only rows installed before them
    /// (except after a removal re-parameterises a variable), so expanding the newest first lets
    /// shared references cancel early. 0: a reduced row, or not basic.
    var stamp: Int32 = 0
    var kind: SymbolKind
    var isBasic = false
    /// For a basic external: its row's expansion may hold a parameter (a non-basic external).
    /// False only when it certainly holds none, so that choosing a subject can skip the row and
    /// everything it references (see Solver+Subject.swift). Meaningless otherwise. Sits in the
    /// padding after `isBasic`: the slot stays 48 bytes.
    var mayHoldParameters = false
    /// The basic symbols whose rows hold this one, in no particular order (each cell records its
    /// slot, so a row leaves a column in O(1)); short ones inline (see `Column`).
    var column = Column()

    init(kind: SymbolKind) { self.kind = kind }
}

/// A symbol's kind and whether it is basic, in one byte: a copy of `SymbolSlot.kind` and
/// `.isBasic`. The ambiguity check and the degeneracy scans visit every symbol to pick the few
/// they need (non-basic candidates, basic restricted rows); reading that from 48-byte slots made
/// a scan of a 50-view form ~470 cache lines, under load nearly all misses, where this is ~10.
struct SymbolStatus: Equatable, Sendable {
    private var raw: UInt8

    init(kind: SymbolKind, isBasic: Bool) { raw = kind.rawValue | (isBasic ? 0x80 : 0) }

    @inline(__always) var kind: SymbolKind { SymbolKind(rawValue: raw & 0x7f)! }
    @inline(__always) var isBasic: Bool { raw & 0x80 != 0 }

    /// A basic slack or error row: one that can be degenerate (see `Solver.isDegenerate`).
    @inline(__always) var isBasicSlackOrError: Bool {
        raw == 0x80 | SymbolKind.slack.rawValue || raw == 0x80 | SymbolKind.error.rawValue
    }
}
