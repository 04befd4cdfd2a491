/// One cell of a row: `coefficient · symbol`, and where this row sits in the symbol's column.
///
/// The slot makes removing a row from a column O(1) (swap with the column's last entry), where a
/// sorted column pays a memmove: a pivot on a row holding a very common marker (the root width's
/// edit marker is in thousands of rows) used to spend most of its time there. Rows that are not
/// indexed (objectives, rows being built) keep -1.
struct Cell {
    var symbol: Int32
    var slot: Int32
    var coefficient: Double

    @inline(__always)
    init(_ symbol: Int32, _ coefficient: Double, slot: Int32 = -1) {
        self.symbol = symbol
        self.slot = slot
        self.coefficient = coefficient
    }
}

/// A row of the tableau: `basic = constant + Σ coefficient·symbol` over non-basic symbols, or an
/// objective. Cells are kept sorted by symbol number, so merges are linear and every traversal is
/// deterministic (no hash order). One array of 16-byte cells: one allocation per row.
struct Row {
    var cells: [Cell] = []
    var constant: Double = 0

    init(constant: Double = 0) { self.constant = constant }

    var count: Int { cells.count }
    var isEmpty: Bool { cells.isEmpty }
    /// The symbols, ascending (allocates: for the rare paths).
    var symbols: [Int32] { cells.map(\.symbol) }

    /// Position of `s` among the cells, or where it would be inserted (negative − 1).
    @inline(__always)
    func search(_ s: Int32) -> Int {
        cells.withUnsafeBufferPointer { c in
            var lo = 0
            var hi = c.count - 1
            while lo <= hi {
                let mid = (lo + hi) >> 1
                let v = c[mid].symbol
                if v < s { lo = mid + 1 } else if v > s { hi = mid - 1 } else { return mid }
            }
            return -(lo + 1)
        }
    }

    /// The coefficient of `s`, looking at the first cache line of cells before searching the
    /// rest. For a constant change: the markers of early constraints (the root's size, the
    /// content's insets) sit at the front of every row that holds them, and a binary search
    /// would pay a dependent cache miss per probe on each of thousands of rows.
    @inline(__always)
    func coefficientNearFront(_ s: Int32) -> Double {
        cells.withUnsafeBufferPointer { c in
            let k = min(4, c.count)
            for i in 0..<k where c[i].symbol >= s { return c[i].symbol == s ? c[i].coefficient : 0 }
            var lo = k
            var hi = c.count - 1
            while lo <= hi {
                let mid = (lo + hi) >> 1
                let v = c[mid].symbol
                if v < s { lo = mid + 1 } else if v > s { hi = mid - 1 } else { return c[mid].coefficient }
            }
            return 0
        }
    }

    @inline(__always)
    func coefficient(_ s: Int32) -> Double {
        let i = search(s)
        return i >= 0 ? cells[i].coefficient : 0
    }

    /// Adds `c·s` to a row that is not indexed; returns +1 when the symbol was inserted, -1 when it
    /// cancelled out, 0 otherwise.
    @discardableResult
    mutating func add(_ s: Int32, _ c: Double) -> Int {
        let i = search(s)
        if i >= 0 {
            let v = cells[i].coefficient + c
            if abs(v) < Tolerance.zero {
                cells.remove(at: i)
                return -1
            }
            cells[i].coefficient = v
            return 0
        }
        if abs(c) < Tolerance.zero { return 0 }
        cells.insert(Cell(s, c), at: -(i + 1))
        return 1
    }

    /// Removes the cell of `s`, returning its coefficient (0 if absent).
    @discardableResult
    mutating func remove(_ s: Int32) -> Double {
        let i = search(s)
        guard i >= 0 else { return 0 }
        return cells.remove(at: i).coefficient
    }

    mutating func negate() {
        constant = -constant
        for i in cells.indices { cells[i].coefficient = -cells[i].coefficient }
    }

    /// Turns `0 = constant + Σ` (which holds `s`) into `s = …`.
    mutating func solve(for s: Int32) {
        let c = remove(s)
        let k = -1.0 / c
        constant *= k
        for i in cells.indices { cells[i].coefficient *= k }
    }

    /// Turns `lhs = constant + Σ` (which holds `rhs`) into `rhs = …` (with `lhs` as a cell).
    /// The cell of `rhs` becomes the cell of `lhs`, moved to its sorted place: the row keeps its
    /// length, so nothing is reallocated (a pivot's row is stored at exactly its length).
    mutating func solve(_ lhs: Int32, for rhs: Int32) {
        var i = search(rhs)
        let c = cells[i].coefficient
        cells.withUnsafeMutableBufferPointer { cells in
            while i + 1 < cells.count && cells[i + 1].symbol < lhs { cells[i] = cells[i + 1]; i += 1 }
            while i > 0 && cells[i - 1].symbol > lhs { cells[i] = cells[i - 1]; i -= 1 }
            cells[i] = Cell(lhs, -1)
        }
        let k = -1.0 / c
        constant *= k
        for j in cells.indices { cells[j].coefficient *= k }
    }

    /// `self += c · other` for rows that are not indexed.
    mutating func add(_ other: Row, times c: Double) {
        var inserted: [Int32] = []
        var removed: [Cell] = []
        var scratch: [Cell] = []
        add(other, times: c, inserted: &inserted, removed: &removed, scratch: &scratch)
    }

    /// `self += c · other`, a linear merge of the sorted cells through a caller-owned buffer (no
    /// allocation once it and the row have grown). Symbols that enter the
    /// row (slot -1) are appended to `inserted`, cells that cancel (with their slot) to `removed`,
    /// so the caller can keep its column index.
    mutating func add(_ other: Row, times c: Double, inserted: inout [Int32], removed: inout [Cell],
                      scratch out: inout [Cell]) {
        constant += c * other.constant
        let n = cells.count
        let m = other.cells.count
        if m == 0 { return }
        if m * 8 < n {
            // A short row into a long one: binary-search updates beat copying the long row.
            for j in 0..<m {
                let s = other.cells[j].symbol
                let v = c * other.cells[j].coefficient
                let i = search(s)
                if i >= 0 {
                    let sum = cells[i].coefficient + v
                    if abs(sum) < Tolerance.zero {
                        removed.append(cells.remove(at: i))
                    } else {
                        cells[i].coefficient = sum
                    }
                } else if abs(v) >= Tolerance.zero {
                    cells.insert(Cell(s, v), at: -(i + 1))
                    inserted.append(s)
                }
            }
            return
        }
        // The merge writes through raw buffers (an `append` per cell costs a capacity and a
        // uniqueness check): the scratch array is first made long enough, then cut to size.
        if out.count < n + m { out.append(contentsOf: repeatElement(Cell(0, 0), count: n + m - out.count)) }
        var k = 0
        out.withUnsafeMutableBufferPointer { o in
            cells.withUnsafeBufferPointer { a in
                other.cells.withUnsafeBufferPointer { b in
                    var i = 0
                    var j = 0
                    while i < n || j < m {
                        if j == m || (i < n && a[i].symbol < b[j].symbol) {
                            o[k] = a[i]; k += 1; i += 1
                        } else if i == n || b[j].symbol < a[i].symbol {
                            let v = c * b[j].coefficient
                            if abs(v) >= Tolerance.zero {
                                o[k] = Cell(b[j].symbol, v); k += 1; inserted.append(b[j].symbol)
                            }
                            j += 1
                        } else {
                            let v = a[i].coefficient + c * b[j].coefficient
                            if abs(v) >= Tolerance.zero {
                                o[k] = a[i]; o[k].coefficient = v; k += 1
                            } else {
                                removed.append(a[i])
                            }
                            i += 1; j += 1
                        }
                    }
                }
            }
        }
        // Copied back into the row's own buffer: swapping buffers would leave the scratch with a
        // short row's capacity, and the next merge would allocate.
        cells.removeAll(keepingCapacity: true)
        cells.append(contentsOf: out[0..<k])
    }
}
