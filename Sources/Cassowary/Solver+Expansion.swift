// External rows are kept unexpanded: `x = constant + Σ c·s` where `s` may be another basic
// external (a reference). Restricted rows (slacks, errors, dummies) are always fully reduced, as the
// simplex needs. This keeps a chain `y_k = y_{k-1} + h_{k-1} + 8` at three cells per row instead
// of the whole chain's markers: the fill-in that makes kiwi's build cubic.

extension Solver {
    /// Replaces every basic external in `row` by its row, recursively, newest first.
    ///
    /// The sum is kept in a dense accumulator indexed by symbol (`scratch.expansion`), so each reference
    /// costs its own row's length, not a merge over the whole accumulated row (a form's rows
    /// reach dozens of cells through hundreds of references). The arithmetic is the merge's, in
    /// the same order, with the same dropping of |coefficient| < `Tolerance.zero`: the result is
    /// bit-identical.
    mutating func expand(_ row: inout Row) {
        guard row.cells.contains(where: { tableau.slots[Int($0.symbol)].isBasic }) else { return }
        growExpansion()
        var touched: [Int32] = []
        swap(&touched, &scratch.touched)
        touched.removeAll(keepingCapacity: true)
        let constant = accumulate(row, scope: .full, touched: &touched).constant
        touched.sort()
        var out = Row(constant: constant)
        // Exactly as long as the result (the row is stored as it is: the touched symbols, which
        // include every cancelled one, would over-allocate it).
        var count = 0
        var previous: Int32 = -1
        for s in touched where s != previous {
            previous = s
            if scratch.expansion[Int(s)] != 0 { count += 1 }
        }
        out.cells.reserveCapacity(count)
        previous = -1
        for s in touched where s != previous {
            previous = s
            let v = scratch.expansion[Int(s)]
            if v != 0 {
                out.cells.append(Cell(s, v))
                scratch.expansion[Int(s)] = 0
            }
        }
        swap(&touched, &scratch.touched)
        row = out
    }

    /// What `accumulate` follows: every reference (`expand`), or only the parameters and the
    /// references flagged `mayHoldParameters` (the subject search, Solver+Subject.swift).
    enum ExpansionScope { case full, parameters }

    /// Sums `row` into `scratch.expansion` with every reference in `scope` replaced by its row,
    /// recursively, newest first (a max-heap on the install stamp: a row references older rows,
    /// so shared references cancel before they are expanded). A basic symbol is pushed when it
    /// enters the sum; one that cancels or is pushed twice pops with a zero coefficient and is
    /// skipped. Each symbol entered is appended to `touched` (cancelled ones too, possibly twice);
    /// references end at zero. Returns the constant of the sum (`.full` only) and whether a
    /// reference left out (`.parameters`) references rows itself.
    @inline(__always)
    mutating func accumulate(_ row: Row, scope: ExpansionScope, touched: inout [Int32]) -> (constant: Double, skippedChain: Bool) {
        var constant = row.constant
        var skippedChain = false
        var heap = StampHeap()
        for cell in row.cells {
            let s = cell.symbol
            if scope == .parameters && !carriesParameters(s) {
                if tableau.slots[Int(s)].isBasic && tableau.slots[Int(s)].stamp != 0 { skippedChain = true }
                continue
            }
            scratch.expansion[Int(s)] = cell.coefficient
            touched.append(s)
            if tableau.slots[Int(s)].isBasic { heap.push(s, tableau.slots[Int(s)].stamp) }
        }
        while let x = heap.pop() {
            let c = scratch.expansion[Int(x)]
            if c == 0 { continue }
            scratch.expansion[Int(x)] = 0
            constant += c * tableau.slots[Int(x)].row.constant
            for cell in tableau.slots[Int(x)].row.cells {
                let s = cell.symbol
                let si = Int(s)
                if scope == .parameters && !carriesParameters(s) {
                    if tableau.slots[si].isBasic && tableau.slots[si].stamp != 0 { skippedChain = true }
                    continue
                }
                let old = scratch.expansion[si]
                if old == 0 {
                    let v = c * cell.coefficient
                    if abs(v) >= Tolerance.zero {
                        scratch.expansion[si] = v
                        touched.append(s)
                        if tableau.slots[si].isBasic { heap.push(s, tableau.slots[si].stamp) }
                    }
                } else {
                    let v = old + c * cell.coefficient
                    scratch.expansion[si] = abs(v) < Tolerance.zero ? 0 : v
                }
            }
        }
        return (constant, skippedChain)
    }

    /// A non-basic external of the row that no row references: making it basic with the row as it
    /// stands creates no cycle and needs no substitution (ties: lowest symbol).
    func freshSubject(_ row: Row) -> Int32? {
        for cell in row.cells {
            let s = cell.symbol
            if tableau.slots[Int(s)].kind == .external && !tableau.slots[Int(s)].isBasic && tableau.slots[Int(s)].column.isEmpty { return s }
        }
        return nil
    }

    /// `scratch.expansion` as long as the symbols (new entries 0).
    mutating func growExpansion() {
        if scratch.expansion.count < tableau.slots.count {
            scratch.expansion.append(contentsOf: repeatElement(0, count: tableau.slots.count - scratch.expansion.count))
        }
    }
}

/// A binary max-heap of symbols by install stamp.
struct StampHeap {
    var items: [(Int32, Int32)] = []
    mutating func push(_ s: Int32, _ key: Int32) {
        items.append((s, key))
        var i = items.count - 1
        while i > 0 {
            let p = (i - 1) / 2
            if items[p].1 >= items[i].1 { break }
            items.swapAt(p, i)
            i = p
        }
    }
    mutating func pop() -> Int32? {
        guard let top = items.first else { return nil }
        let last = items.removeLast()
        if !items.isEmpty {
            items[0] = last
            var i = 0
            while true {
                let l = 2 * i + 1, r = l + 1
                var m = i
                if l < items.count && items[l].1 > items[m].1 { m = l }
                if r < items.count && items[r].1 > items[m].1 { m = r }
                if m == i { break }
                items.swapAt(i, m)
                i = m
            }
        }
        return top.0
    }
}
