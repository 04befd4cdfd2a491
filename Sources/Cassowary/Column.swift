/// The basic rows whose row holds one symbol, in no particular order (each row's cell records
/// its slot here, so that a row leaves a column in O(1): see `Solver.unindex`).
///
/// Most columns are short (a view's variable is referenced by one to three rows), and reading
/// one is on the hot paths of an edit: the value sweep marks each changed row's dependents, the
/// free-direction check walks every candidate's column. An array per column put each of them in
/// its own allocation, one cache miss away from the column index, under load almost always a
/// miss. Up to three entries are therefore kept inline, in the index itself; a longer column
/// spills into an array, and stays spilled (keeping its capacity) until `compact()`: the dual
/// simplex moves the same symbols in and out of the basis, and a column that flipped between
/// the two forms would allocate each time.
struct Column: Sendable {
    /// Entries past the count are left over, never read.
    private var inline: (Int32, Int32, Int32) = (0, 0, 0)
    /// The number of entries while inline; -1 once spilled (the count is then `spill.count`).
    private var inlineCount: Int32 = 0
    private var spill: [Int32] = []

    static let inlineCapacity = 3

    init() {}

    init<S: Sequence<Int32>>(_ entries: S) {
        for e in entries { append(e) }
    }

    @inline(__always)
    var count: Int { inlineCount >= 0 ? Int(inlineCount) : spill.count }

    @inline(__always)
    var isEmpty: Bool { count == 0 }

    /// The entries are held in the column itself (not spilled).
    var isInline: Bool { inlineCount >= 0 }

    subscript(i: Int) -> Int32 {
        @inline(__always) get {
            if inlineCount < 0 { return spill[i] }
            precondition(i >= 0 && i < Int(inlineCount), "Column index out of range")
            switch i {
            case 0: return inline.0
            case 1: return inline.1
            default: return inline.2
            }
        }
        @inline(__always) set {
            if inlineCount < 0 {
                spill[i] = newValue
                return
            }
            precondition(i >= 0 && i < Int(inlineCount), "Column index out of range")
            switch i {
            case 0: inline.0 = newValue
            case 1: inline.1 = newValue
            default: inline.2 = newValue
            }
        }
    }

    mutating func append(_ b: Int32) {
        if inlineCount < 0 {
            spill.append(b)
            return
        }
        switch inlineCount {
        case 0: inline.0 = b
        case 1: inline.1 = b
        case 2: inline.2 = b
        default:
            spill.reserveCapacity(2 * Self.inlineCapacity)
            spill.append(inline.0)
            spill.append(inline.1)
            spill.append(inline.2)
            spill.append(b)
            inlineCount = -1
            return
        }
        inlineCount += 1
    }

    /// Removes and returns the last entry (the column must not be empty).
    @discardableResult
    mutating func removeLast() -> Int32 {
        if inlineCount < 0 { return spill.removeLast() }
        precondition(inlineCount > 0, "removeLast on an empty Column")
        let last = self[Int(inlineCount) - 1]
        inlineCount -= 1
        return last
    }

    /// Empties the column; a spilled one keeps its storage.
    mutating func removeAll() {
        if inlineCount < 0 { spill.removeAll(keepingCapacity: true) } else { inlineCount = 0 }
    }

    /// Gives back spare storage: a spilled column short enough goes back inline.
    mutating func compact() {
        guard inlineCount < 0 else { return }
        if spill.count <= Self.inlineCapacity {
            self = Column(spill)
        } else if spill.capacity > spill.count {
            spill = spill.exactlySized()
        }
    }

    /// Runs `body` over the entries as one buffer (inline ones copied to the stack first).
    @inline(__always)
    func withEntries<R>(_ body: (UnsafeBufferPointer<Int32>) throws -> R) rethrows -> R {
        if inlineCount < 0 { return try spill.withUnsafeBufferPointer(body) }
        var copy = inline
        let n = Int(inlineCount)
        return try withUnsafeBytes(of: &copy) { raw in
            try body(UnsafeBufferPointer(start: raw.baseAddress!.assumingMemoryBound(to: Int32.self), count: n))
        }
    }
}

extension Column: Sequence {
    struct Iterator: IteratorProtocol {
        let column: Column
        var position = 0

        @inline(__always)
        mutating func next() -> Int32? {
            guard position < column.count else { return nil }
            defer { position += 1 }
            return column[position]
        }
    }

    @inline(__always)
    func makeIterator() -> Iterator { Iterator(column: self) }

    var underestimatedCount: Int { count }
}

extension Column: Equatable {
    static func == (a: Column, b: Column) -> Bool { a.elementsEqual(b) }
}

extension Column: CustomStringConvertible {
    var description: String { Array(self).description }
}
