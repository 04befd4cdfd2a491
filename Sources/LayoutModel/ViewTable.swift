/// The document's views as dense tables, built once per document so that the hot paths of
/// constraint compilation (anchor lookups, `ConstraintRules`) do not hash view ids into
/// dictionaries of `View`s or walk parent chains per entry and item. Describes exactly the
/// `ViewLookup` it was built beside.
final class ViewTable: @unchecked Sendable {  // immutable after init; the buffers are owned
    /// View id → position.
    let index: [String: Int]
    /// Ids by position.
    let ids: [String]
    let isGuide: [Bool]
    /// Position of each view's root (itself for a root); -1 when its parent chain runs into a cycle
    /// or names an unknown view (where `ConstraintRules.root(of:views:)` is nil).
    let root: [Int]
    /// `index` again as an open-addressing table over the ids' UTF-8 bytes (FNV-1a), for lookups
    /// straight from an anchor's bytes: slot = position + 1, 0 = empty. Empty when some id is not ASCII.
    private let slots: UnsafeMutableBufferPointer<Int32>
    /// The ids' bytes, one after another; id i is `idBytes[idStart[i] ..< idStart[i + 1]]`.
    private let idBytes: UnsafeMutableBufferPointer<UInt8>
    private let idStart: UnsafeMutableBufferPointer<Int32>

    /// - Parameter index: id → position in `views`, when the caller already has it.
    init(views: [View], index known: [String: Int]? = nil) {
        var index: [String: Int]
        if let known {
            index = known
        } else {
            index = [String: Int](minimumCapacity: views.count)
            for i in views.indices { index[views[i].id] = i }  // a later duplicate wins, as in ViewLookup
        }
        let n = views.count
        var ids: [String] = []
        ids.reserveCapacity(n)
        var isGuide: [Bool] = []
        isGuide.reserveCapacity(n)
        // -1 = a root, -2 = names an unknown view.
        var parent = [Int](repeating: -1, count: n)
        for i in views.indices {
            ids.append(views[i].id)
            isGuide.append(views[i].kind == .guide)
            if let p = views[i].parent { parent[i] = index[p] ?? -2 }
        }
        // Memoized walk up the parents; 0 = unvisited, 1 = on the current walk, 2 = done.
        var root = [Int](repeating: -1, count: n)
        var state = [UInt8](repeating: 0, count: n)
        var path: [Int] = []
        for start in 0..<n where state[start] == 0 {
            path.removeAll(keepingCapacity: true)
            var current = start
            var result = -1
            while true {
                if state[current] == 2 { result = root[current]; break }
                if state[current] == 1 { result = -1; break }  // a cycle
                state[current] = 1
                path.append(current)
                let p = parent[current]
                if p == -1 { result = current; break }
                if p == -2 { result = -1; break }
                current = p
            }
            for v in path { root[v] = result; state[v] = 2 }
        }

        // The byte table, over exactly the pairs of `index`.
        var bytes: [UInt8] = []
        var starts: [Int32] = []
        var ascii = true
        starts.reserveCapacity(n + 1)
        for id in ids {
            starts.append(Int32(truncatingIfNeeded: bytes.count))
            for b in id.utf8 {
                if b >= 0x80 { ascii = false }
                bytes.append(b)
            }
        }
        starts.append(Int32(truncatingIfNeeded: bytes.count))
        if bytes.count >= Int(Int32.max) || n >= Int(Int32.max) { ascii = false }
        if ascii {
            var capacity = 16
            while capacity < 2 * index.count { capacity *= 2 }
            var slots = [Int32](repeating: 0, count: capacity)
            let mask = capacity - 1
            for (_, position) in index {
                var h = Self.offsetBasis
                for b in bytes[Int(starts[position]) ..< Int(starts[position + 1])] { h = Self.step(h, b) }
                var i = Self.finish(h) & mask
                while slots[i] != 0 { i = (i + 1) & mask }
                slots[i] = Int32(position + 1)
            }
            self.slots = Self.buffer(slots)
            self.idBytes = Self.buffer(bytes)
            self.idStart = Self.buffer(starts)
        } else {
            self.slots = Self.buffer([]); self.idBytes = Self.buffer([]); self.idStart = Self.buffer([])
        }
        self.index = index; self.ids = ids; self.isGuide = isGuide; self.root = root
    }

    deinit {
        slots.deallocate(); idBytes.deallocate(); idStart.deallocate()
    }

    private static func buffer<T>(_ array: [T]) -> UnsafeMutableBufferPointer<T> {
        let b = UnsafeMutableBufferPointer<T>.allocate(capacity: max(array.count, 1))
        _ = b.initialize(from: array)
        return UnsafeMutableBufferPointer(rebasing: b[0 ..< array.count])
    }

    // FNV-1a.
    private static let offsetBasis: UInt64 = 0xcbf2_9ce4_8422_2325
    @inline(__always) private static func step(_ h: UInt64, _ b: UInt8) -> UInt64 { (h ^ UInt64(b)) &* 0x100_0000_01b3 }
    @inline(__always) private static func finish(_ h: UInt64) -> Int { Int(truncatingIfNeeded: h ^ (h >> 29)) }

    private enum Resolution {
        case found(Int, Attribute)
        /// Not a single attribute of a known view (or not ASCII): the general path decides.
        case no
        /// Not decided over bytes (an alias attribute name, no byte table): resolve the strings.
        case undecided
    }

    /// `viewId.attribute` for a single attribute of a known view, as `AnchorVocabulary.reference`
    /// resolves it; nil when it fails, is not a single attribute, or the text is not ASCII (the
    /// caller then takes the general path, which decides).
    func singleAnchor(_ text: String) -> (view: Int, attribute: Attribute)? {
        let resolution = text.utf8.withContiguousStorageIfAvailable { resolve($0) } ?? .undecided
        switch resolution {
        case .found(let v, let a): return (v, a)
        case .no: return nil
        case .undecided: return resolveStrings(text)
        }
    }

    private func resolve(_ bytes: UnsafeBufferPointer<UInt8>) -> Resolution {
        guard !slots.isEmpty else { return .undecided }
        let count = bytes.count
        var dot = -1
        var h = Self.offsetBasis
        for i in 0 ..< count {
            let b = bytes[i]
            if b >= 0x80 { return .no }
            if b == UInt8(ascii: ".") {
                if dot >= 0 { return .no }
                dot = i
            } else if dot < 0 {
                h = Self.step(h, b)
            }
        }
        guard dot > 0, dot < count - 1 else { return .no }
        // The view: probe for an id of these bytes.
        let mask = slots.count - 1
        var i = Self.finish(h) & mask
        var view = -1
        while true {
            let slot = Int(slots[i])
            if slot == 0 { return .no }  // no such view
            let start = Int(idStart[slot - 1])
            if Int(idStart[slot]) - start == dot {
                var k = 0
                while k < dot && idBytes[start + k] == bytes[k] { k += 1 }
                if k == dot { view = slot - 1; break }
            }
            i = (i + 1) & mask
        }
        guard let a = Self.attribute(UnsafeBufferPointer(rebasing: bytes[(dot + 1)...])) else { return .undecided }
        return .found(view, a)
    }

    /// The general resolution over strings (aliases such as `topAnchor`).
    private func resolveStrings(_ text: String) -> (view: Int, attribute: Attribute)? {
        let utf8 = text.utf8
        var dot: String.Index?
        for i in utf8.indices {
            let b = utf8[i]
            if b >= 0x80 { return nil }
            if b == UInt8(ascii: ".") {
                if dot != nil { return nil }
                dot = i
            }
        }
        guard let dot, dot != utf8.startIndex else { return nil }
        let after = utf8.index(after: dot)
        guard after != utf8.endIndex else { return nil }
        guard let v = index[String(text[..<dot])] else { return nil }
        let name = String(text[after...])
        if let a = Attribute(rawValue: name) { return (v, a) }
        if case .single(let a)? = AnchorVocabulary.resolve(name) { return (v, a) }
        return nil
    }

    /// An ASCII name of up to 24 bytes packed into three words, with its length.
    private struct PackedName: Equatable {
        var length: Int
        var words: (UInt64, UInt64, UInt64)

        init?(_ bytes: UnsafeBufferPointer<UInt8>) {
            guard bytes.count <= 24 else { return nil }
            length = bytes.count
            var w: (UInt64, UInt64, UInt64) = (0, 0, 0)
            for i in 0 ..< bytes.count {
                let b = UInt64(bytes[i]) << (8 * UInt64(i & 7))
                switch i >> 3 {
                case 0: w.0 |= b
                case 1: w.1 |= b
                default: w.2 |= b
                }
            }
            words = w
        }

        static func == (a: PackedName, b: PackedName) -> Bool {
            a.length == b.length && a.words.0 == b.words.0 && a.words.1 == b.words.1 && a.words.2 == b.words.2
        }
    }

    /// The names of `Attribute` (all ASCII, at most 20 bytes), packed.
    private static let attributeNames: [(PackedName, Attribute)] = Attribute.allCases.map { a in
        var name = a.rawValue
        return (name.withUTF8 { PackedName($0)! }, a)
    }

    /// `Attribute(rawValue:)` over the bytes of an ASCII name.
    static func attribute(_ bytes: UnsafeBufferPointer<UInt8>) -> Attribute? {
        guard let name = PackedName(bytes) else { return nil }
        for (candidate, a) in attributeNames where candidate == name { return a }
        return nil
    }
}

extension ViewTable {
    /// Whether ids can be looked up from bytes (`position(ofID:)`); false when some id is not ASCII.
    var hasByteTable: Bool { !slots.isEmpty }

    /// The position of the view whose id is exactly these bytes, nil when there is none (always nil
    /// without a byte table: check `hasByteTable` first).
    func position(ofID bytes: UnsafeBufferPointer<UInt8>) -> Int? {
        guard !slots.isEmpty, !bytes.isEmpty else { return nil }
        var h = Self.offsetBasis
        for b in bytes { h = Self.step(h, b) }
        let mask = slots.count - 1
        var i = Self.finish(h) & mask
        while true {
            let slot = Int(slots[i])
            if slot == 0 { return nil }
            let start = Int(idStart[slot - 1])
            if Int(idStart[slot]) - start == bytes.count {
                var k = 0
                while k < bytes.count && idBytes[start + k] == bytes[k] { k += 1 }
                if k == bytes.count { return slot - 1 }
            }
            i = (i + 1) & mask
        }
    }
}
