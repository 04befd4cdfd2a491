// Installing a row under an external subject that other rows already reference, keeping the
// row's own references (issue 32).
//
// Before, such a row was installed fully expanded ("reduced": in non-basic symbols only, stamp 0),
// because the rows referencing the subject are older than it and stamp order must stay a
// dependency order. A reduced row holds every marker of every row it depends on: in a form or a
// feed, each view placed below the chain of stacked sections or cells got a row as long as the
// chain above it (a 20,000-view form: 29,000 such rows, 6.3 M cells, 57 cells a row on average,
// and 24 s of its cold solve spent merging them). Here the row keeps its references, and the
// rows that depend on the subject are given new stamps after it: the tableau stays about as
// sparse as the document (4.6 cells a row), with the same pivots and the same values.

extension Solver {
    /// At most this many rows may depend on the subject; beyond, the row is installed fully
    /// expanded as before (restamping them all would cost more than it saves).
    static let dependentLimit = 1 << 20
    /// Expansions up to this many cells are installed as they are: keeping references pays only
    /// for long ones (a 1,000-view form or grid built 1.3x-1.8x slower when every row took this
    /// path), and a row this short adds little fill-in.
    static let referenceThreshold = 32

    /// Installs `row` (with its references) under `x`, the external subject `chooseSubject` took
    /// from its full expansion, expanding only the references that depend on `x` (they hold it,
    /// and keeping them would close a cycle), then gives the rows that depend on `x` new stamps
    /// after it. The subject is the one a fully expanded row gets, so the basis, and every value,
    /// is the same; only the row is shorter. Returns false, changing nothing, when there are more
    /// than `dependentLimit` dependents or `installsWithReferences` is off.
    mutating func installWithReferences(_ row: Row, subject x: Int32) -> Bool {
        guard installsWithReferences else { return false }
        // The dependents and their marks live in scratch buffers: most subjects have one or two
        // dependents, and a set and an array allocated per row cost more than the rest of it.
        var dependents: [Int32] = []
        swap(&dependents, &scratch.dependents)
        if scratch.isDependent.count < tableau.slots.count {
            scratch.isDependent.append(contentsOf: repeatElement(false, count: tableau.slots.count - scratch.isDependent.count))
        }
        defer {
            for y in dependents { scratch.isDependent[Int(y)] = false }
            dependents.removeAll(keepingCapacity: true)
            swap(&dependents, &scratch.dependents)
        }
        guard collectDependents(of: x, into: &dependents) else { return false }
        var r = row
        // Every expansion removes a dependent from the row (its own row holds only older ones):
        // at most one pass per dependent.
        for _ in 0...dependents.count {
            guard let y = r.cells.first(where: { scratch.isDependent[Int($0.symbol)] })?.symbol else { break }
            expandOne(y, in: &r)
        }
        guard !r.cells.contains(where: { scratch.isDependent[Int($0.symbol)] }), abs(r.coefficient(x)) >= Tolerance.zero else { return false }
        r.solve(for: x)
        installRow(x, r)
        restamp(dependents)
        return true
    }

    /// Replaces the reference `y` in `row` (not indexed) by y's row: one level of expansion.
    func expandOne(_ y: Int32, in row: inout Row) {
        let c = row.remove(y)
        row.add(tableau.slots[Int(y)].row, times: c)
    }

    /// The rows that hold `x`, directly or through other rows, in an order that keeps references
    /// pointing back: reduced rows (stamp 0: they reference only `x` once it is basic) first,
    /// then by stamp. Only external rows reference externals (restricted rows are reduced, and
    /// objectives hold restricted symbols only). Marks each in `scratch.isDependent` (the caller
    /// clears the marks of `out`). False when there are more than `dependentLimit`.
    mutating func collectDependents(of x: Int32, into out: inout [Int32]) -> Bool {
        out.removeAll(keepingCapacity: true)
        // `out` doubles as the stack: entries before `next` have had their columns read.
        var next = 0
        var s = x
        while true {
            for y in tableau.slots[Int(s)].column where tableau.slots[Int(y)].kind == .external && !scratch.isDependent[Int(y)] {
                scratch.isDependent[Int(y)] = true
                out.append(y)
                if out.count > Self.dependentLimit { return false }
            }
            guard next < out.count else { break }
            s = out[next]
            next += 1
        }
        if out.count > 1 {
            out.sort { (tableau.slots[Int($0)].stamp, $0) < (tableau.slots[Int($1)].stamp, $1) }
        }
        return true
    }

    /// Gives each of `rows` (in dependency order) the next stamp; their values are recomputed by
    /// the next `updateValues` (the subject they reference was 0 while non-basic).
    mutating func restamp(_ rows: [Int32]) {
        guard !rows.isEmpty else { return }
        structureChanged()
        for y in rows {
            tableau.nextStamp += 1
            tableau.slots[Int(y)].stamp = tableau.nextStamp
            tableau.stampOrder.append(y)
            markDirty(y)
        }
        compactStampOrderIfSparse()
    }

    /// Renumbers the stamps when most entries of the stamp order are stale (rows given a new
    /// stamp leave their old entry behind): the order, and the marks a value sweep reads, stay
    /// about as long as the rows. Only between operations (no marks are set).
    mutating func compactStampOrderIfSparse() {
        let order = tableau.stampOrder
        // Live entries are at most the symbols: past twice as many entries, at least half are
        // stale. An O(1) test, and a renumbering at most every `slots.count` new stamps.
        guard order.count > 4096 && order.count > 2 * tableau.slots.count else { return }
        var compacted: [Int32] = []
        compacted.reserveCapacity(tableau.slots.count)
        for (k, s) in order.enumerated() where tableau.slots[Int(s)].isBasic && tableau.slots[Int(s)].stamp == Int32(k + 1) {
            compacted.append(s)
            tableau.slots[Int(s)].stamp = Int32(compacted.count)
        }
        tableau.stampOrder = compacted
        tableau.nextStamp = Int32(compacted.count)
        cache.pendingStamps.removeAll(keepingCapacity: true)
    }
}
