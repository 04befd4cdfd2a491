import JSON

/// Parses the document's `views` (object keyed by id, or array of objects with `id`), reporting every
/// problem in document order.
struct ViewParser {
    /// One entry of `views` as written, before its fields are read.
    struct RawView {
        var id: String?
        /// Where the entry is: `base/key` (object form) or `base/index` (array form), written out
        /// only when a problem is reported.
        var base: String
        var key: String?
        var index: Int
        var object: JSONObject?
        /// False for an invalid or duplicate id: the entry is validated but not part of the document.
        var usable: Bool
        var isArrayForm: Bool

        var pointer: String { key.map { docPointer(base, $0) } ?? docPointer(base, index) }
    }

    static let fields: Set<String> = [
        "id", "parent", "kind", "frame", "hidden", "alpha", "intrinsicSize", "hugging",
        "compressionResistance", "margins", "baseline", "stack", "text", "heightForWidth",
    ]
    /// Fields a layout guide cannot have: it has no intrinsic size, margins, baselines or visibility.
    /// (A stack view is a view: a guide cannot arrange views either.)
    static let notForGuide: Set<String> = ["intrinsicSize", "margins", "baseline", "hidden", "alpha", "stack",
                                           "text", "heightForWidth"]

    static let frameKeys = ["x", "y", "width", "height"]
    static let sizeKeys = ["width", "height"]
    static let marginKeys = ["top", "left", "bottom", "right"]
    static let baselineKeys = ["first", "last"]

    var reader: FieldReader
    /// Views with a valid, first-seen id, in document order.
    var views: [View] = []
    /// View id → position in `views`, when the parser had it at hand (every entry became a view).
    var viewIndex: [String: Int]?
    /// True when a `parent` names no view or the parents form a cycle: the tree cannot be trusted,
    /// so constraints are not compiled against it.
    var hierarchyBroken = false
    let limits: DocumentLimits

    init(limits: DocumentLimits) {
        self.limits = limits
        reader = FieldReader(maxMagnitude: limits.maxMagnitude)
    }

    var problems: [Problem] { reader.problems }

    mutating func parse(_ value: JSONValue, at base: String) {
        // Each entry's problems are collected apart and emitted in entry order at the end.
        var raws: [RawView] = []
        var buckets: [[Problem]] = []
        switch value {
        case .object(let o):
            guard checkCount(o.count, at: base) else { return }
            raws.reserveCapacity(o.count)
            buckets.reserveCapacity(o.count)
            for (key, v) in o.entries {
                var raw = RawView(id: key, base: base, key: key, index: 0, object: nil, usable: true,
                                  isArrayForm: false)
                if case .object(let object) = v { raw.object = object } else { raw.object = reader.object(v, at: raw.pointer) }
                raws.append(raw)
                buckets.append(take())
            }
        case .array(let a):
            guard checkCount(a.count, at: base) else { return }
            raws.reserveCapacity(a.count)
            buckets.reserveCapacity(a.count)
            for (i, v) in a.enumerated() {
                raws.append(arrayEntry(v, base: base, index: i))
                buckets.append(take())
            }
        default:
            reader.typeMismatch(value, expected: "an object keyed by view id, or an array of views", at: base)
            return
        }
        checkIDs(&raws, buckets: &buckets)
        // Usable ids (unique) → position in `raws`.
        var known = [String: Int](minimumCapacity: raws.count)
        for i in raws.indices where raws[i].usable {
            if let id = raws[i].id, known[id] == nil { known[id] = i }
        }
        let cycles = ParentCycles.find(in: raws, index: known)
        views.reserveCapacity(raws.count)
        for i in raws.indices {
            guard let object = raws[i].object else {
                if raws[i].usable, let id = raws[i].id { views.append(View(id: id)) }
                continue
            }
            let view = parseFields(object, raw: raws[i], known: known, cycle: cycles.isEmpty ? nil : cycles[i])
            let more = take()
            if !more.isEmpty || buckets[i].count > 1 {
                buckets[i] = inFieldOrder(buckets[i] + more, of: object, at: raws[i].pointer)
            }
            if raws[i].usable { views.append(view) }
        }
        // Stacks name other views: checked once every view is read (and implied parents set).
        if views.contains(where: { $0.stack != nil }) { resolveStacks(raws, buckets: &buckets) }
        // When every entry became a view, positions in `raws` are positions in `views`.
        if views.count == raws.count { viewIndex = known }
        reader.problems = buckets.flatMap { $0 }
        if !cycles.isEmpty { hierarchyBroken = true }
    }

    /// Removes and returns the problems reported so far.
    private mutating func take() -> [Problem] {
        if reader.problems.isEmpty { return [] }
        defer { reader.problems.removeAll() }
        return reader.problems
    }

    private mutating func checkCount(_ count: Int, at base: String) -> Bool {
        if count == 0 {
            reader.report(base, .noViews, "a document needs at least one view (a root: a view without parent)")
            return false
        }
        if count > limits.maxViews {
            reader.report(base, .tooManyViews, "\(count) views; this daemon accepts at most \(limits.maxViews)")
            return false
        }
        return true
    }

    private mutating func arrayEntry(_ value: JSONValue, base: String, index: Int) -> RawView {
        var raw = RawView(id: nil, base: base, key: nil, index: index, object: nil, usable: false, isArrayForm: true)
        guard let o = value.objectValue ?? reader.object(value, at: raw.pointer) else { return raw }
        var id: String?
        if let v = o["id"] {
            if case .string(let s) = v { id = s } else { id = reader.string(v, at: docPointer(raw.pointer, "id")) }
        } else {
            reader.report(docPointer(raw.pointer, "id"), .missingField, "a view in an array needs an \"id\"")
        }
        raw.id = id
        raw.object = o
        raw.usable = id != nil
        return raw
    }

    /// Reports invalid and duplicate ids into each entry's bucket; such entries become unusable.
    private func checkIDs(_ raws: inout [RawView], buckets: inout [[Problem]]) {
        var seen = Set<String>()
        for i in raws.indices {
            guard let id = raws[i].id else { continue }
            func at() -> String { raws[i].isArrayForm ? docPointer(raws[i].pointer, "id") : raws[i].pointer }
            var found: Problem?
            if let why = IDRules.problem(with: id, what: "a view") {
                found = Problem(at(), .invalidID, why)
            } else if raws[i].isArrayForm, !seen.insert(id).inserted {
                // (The keys of an object are distinct: only the array form can repeat an id.)
                found = Problem(at(), .duplicateID, "view id '\(id)' is used by an earlier view")
            }
            if let found {
                raws[i].usable = false
                buckets[i].append(found)
            }
        }
    }

    /// One view keyed `id` under `base` whose parent is known to be sound (`known` holds the
    /// document's view ids), validated alone.
    mutating func parseKeyed(_ object: JSONObject, id: String, at base: String, known: [String: Int]) -> View {
        let raw = RawView(id: id, base: base, key: id, index: 0, object: object, usable: true, isArrayForm: false)
        let view = parseFields(object, raw: raw, known: known, cycle: nil)
        if reader.problems.count > 1 { reader.problems = inFieldOrder(reader.problems, of: object, at: raw.pointer) }
        return view
    }

    private mutating func parseFields(_ o: JSONObject, raw: RawView, known: [String: Int],
                                      cycle: String?) -> View {
        var view = View(id: raw.id ?? "")
        // The kind decides which fields are allowed; its own problems are reported in field order.
        if case .string("guide")? = o["kind"] { view.kind = .guide }
        let max = limits.maxMagnitude
        // Fields are read on a fast path when they are fine; a field's pointer is written out (and
        // the general reader runs) only when something about it is off.
        for (key, value) in o.entries {
            if view.kind == .guide && Self.notForGuide.contains(key) {
                reader.report(docPointer(raw.pointer, key), .notForGuide,
                              "'\(view.id)' is a layout guide; a guide has no \(key) (remove the field or make it a view)")
                continue
            }
            switch key {
            case "id":
                if raw.isArrayForm { break }
                if case .string(let s) = value, s == raw.id { break }
                let p = docPointer(raw.pointer, key)
                if let s = reader.string(value, at: p), s != raw.id {
                    reader.report(p, .invalidValue, "\"id\" is '\(s)' but the view's key is '\(raw.id ?? "")'")
                }
            case "kind":
                if case .string(let s) = value, s == "view" || s == "guide" { break }
                _ = reader.word(value, at: docPointer(raw.pointer, key), what: "view kind",
                                choices: [("view", ViewKind.view), ("guide", .guide)])
            case "parent": parseParent(value, raw: raw, key: key, view: &view, known: known, cycle: cycle)
            case "frame":
                if let f = Self.plainNumbers(value, keys: Self.frameKeys, sizes: 0b1100, maxMagnitude: max) {
                    view.frame = FrameSpec(x: f[0], y: f[1], width: f[2], height: f[3])
                } else if let f = reader.numberFields(value, at: docPointer(raw.pointer, key),
                                                      keys: ["x", "y", "width", "height"],
                                                      place: "a frame", sizes: ["width", "height"]) {
                    view.frame = FrameSpec(x: f["x"], y: f["y"], width: f["width"], height: f["height"])
                }
            case "hidden":
                if case .bool(let b) = value { view.hidden = b } else {
                    view.hidden = reader.bool(value, at: docPointer(raw.pointer, key)) ?? false
                }
            case "alpha":
                if case .number(let x) = value, let a = FieldReader.checkMagnitude(x, maxMagnitude: max), a >= 0, a <= 1 {
                    view.alpha = a
                    break
                }
                let p = docPointer(raw.pointer, key)
                if let a = reader.number(value, at: p) {
                    if a < 0 || a > 1 {
                        reader.report(p, .outOfRange, "alpha must be between 0 and 1, got \(formatNumber(a))")
                    } else {
                        view.alpha = a
                    }
                }
            case "intrinsicSize":
                if let s = Self.plainNumbers(value, keys: Self.sizeKeys, sizes: 0b11, maxMagnitude: max) {
                    view.intrinsicWidth = s[0]; view.intrinsicHeight = s[1]
                } else if let s = reader.numberFields(value, at: docPointer(raw.pointer, key),
                                                      keys: ["width", "height"], place: "intrinsicSize",
                                                      sizes: ["width", "height"]) {
                    view.intrinsicWidth = s["width"]; view.intrinsicHeight = s["height"]
                }
            case "hugging":
                if let a = axisPriorities(value, raw: raw, key: key, defaults: view.hugging) { view.hugging = a }
            case "compressionResistance":
                if let a = axisPriorities(value, raw: raw, key: key, defaults: view.compressionResistance) {
                    view.compressionResistance = a
                }
            case "margins":
                if let m = Self.plainNumbers(value, keys: Self.marginKeys, sizes: 0, maxMagnitude: max) {
                    view.margins = Insets(top: m[0] ?? 8, left: m[1] ?? 8, bottom: m[2] ?? 8, right: m[3] ?? 8)
                } else if let m = reader.numberFields(value, at: docPointer(raw.pointer, key),
                                                      keys: ["top", "left", "bottom", "right"], place: "margins") {
                    view.margins = Insets(top: m["top"] ?? 8, left: m["left"] ?? 8,
                                          bottom: m["bottom"] ?? 8, right: m["right"] ?? 8)
                }
            case "baseline":
                if let b = Self.plainNumbers(value, keys: Self.baselineKeys, sizes: 0, maxMagnitude: max) {
                    view.firstBaseline = b[0]; view.lastBaseline = b[1] ?? 0
                } else if let b = reader.numberFields(value, at: docPointer(raw.pointer, key),
                                                      keys: ["first", "last"], place: "baseline") {
                    view.firstBaseline = b["first"]; view.lastBaseline = b["last"] ?? 0
                }
            case "stack":
                view.stack = parseStack(value, at: docPointer(raw.pointer, key), id: view.id, known: known)
            case "text":
                view.text = parseText(value, at: docPointer(raw.pointer, key)) ?? view.text
            case "heightForWidth":
                view.text = parseHeightForWidth(value, at: docPointer(raw.pointer, key)) ?? view.text
            default:
                let allowed = Self.fields.subtracting(raw.isArrayForm ? [] : ["id"]).sorted()
                reader.report(docPointer(raw.pointer, key), .unknownField, "unknown view field '\(key)'; allowed: "
                              + allowed.joined(separator: ", "), suggestion: Suggestion.nearest(key, among: allowed))
            }
        }
        if view.kind == .view { checkTextConflicts(o, at: raw.pointer) }
        return view
    }

    /// Up to four numbers by the position of their key.
    struct Numbers {
        private var values: (Double?, Double?, Double?, Double?) = (nil, nil, nil, nil)
        subscript(i: Int) -> Double? {
            get {
                switch i {
                case 0: return values.0
                case 1: return values.1
                case 2: return values.2
                default: return values.3
                }
            }
            set {
                switch i {
                case 0: values.0 = newValue
                case 1: values.1 = newValue
                case 2: values.2 = newValue
                default: values.3 = newValue
                }
            }
        }
    }

    /// What `FieldReader.numberFields` returns when it reports nothing, by the position of the key
    /// in `keys` (at most four; bit i of `sizes` marks `keys[i]` as a size). nil when the value is
    /// not an object of valid numbers under those keys: the caller then asks the reader, which says
    /// what is wrong.
    static func plainNumbers(_ value: JSONValue, keys: [String], sizes: UInt8, maxMagnitude: Double) -> Numbers? {
        guard case .object(let o) = value else { return nil }
        var out = Numbers()
        for (k, v) in o.entries {
            guard let i = keys.firstIndex(of: k), case .number(let x) = v,
                  let checked = FieldReader.checkMagnitude(x, maxMagnitude: maxMagnitude) else { return nil }
            if sizes & (1 << i) != 0 && checked < 0 { return nil }
            out[i] = checked
        }
        return out
    }

    private mutating func parseParent(_ value: JSONValue, raw: RawView, key: String, view: inout View,
                                      known: [String: Int], cycle: String?) {
        guard case .string(let parent) = value else {
            _ = reader.string(value, at: docPointer(raw.pointer, key))
            return
        }
        if known[parent] == nil {
            reader.report(docPointer(raw.pointer, key), .unknownView, "parent '\(parent)' is not a view of this document",
                          suggestion: Suggestion.nearest(parent, among: known.keys.sorted()))
            hierarchyBroken = true
            return
        }
        if let cycle { reader.report(docPointer(raw.pointer, key), .parentCycle, "parents form a cycle: \(cycle)") }
        view.parent = parent
    }

    private mutating func axisPriorities(_ value: JSONValue, raw: RawView, key: String,
                                         defaults: AxisPriorities) -> AxisPriorities? {
        // Fast path: an object of valid numeric priorities under the two keys.
        if case .object(let o) = value {
            var out = defaults
            var plain = true
            for (k, v) in o.entries {
                guard case .number(let x) = v, Priority.isValid(x) else { plain = false; break }
                if k == "horizontal" { out.horizontal = x } else if k == "vertical" { out.vertical = x } else {
                    plain = false; break
                }
            }
            if plain { return out }
        }
        let p = docPointer(raw.pointer, key)
        guard let o = reader.object(value, at: p) else { return nil }
        reader.rejectUnknownFields(o, at: p, allowed: ["horizontal", "vertical"], place: "a priority pair")
        var out = defaults
        if let h = o["horizontal"], let v = reader.priority(h, at: docPointer(p, "horizontal")) { out.horizontal = v }
        if let v = o["vertical"], let x = reader.priority(v, at: docPointer(p, "vertical")) { out.vertical = x }
        return out
    }
}

/// Finds cycles in `parent` links without recursion.
enum ParentCycles {
    /// - Returns: for the first view (in document order) of each cycle, the cycle written out
    ///   (`a → b → a`); other views of the cycle get nothing, so each cycle is reported once.
    /// - Parameter index: the usable entries' ids (distinct) → position in `raws`.
    static func find(in raws: [ViewParser.RawView], index: [String: Int]) -> [Int: String] {
        var parentOf = [Int?](repeating: nil, count: raws.count)
        for i in raws.indices where raws[i].usable {
            if case .string(let p)? = raws[i].object?["parent"] { parentOf[i] = index[p] }
        }
        // 0 = unvisited, 1 = on the current walk, 2 = done.
        var state = [UInt8](repeating: 0, count: raws.count)
        var out: [Int: String] = [:]
        var path: [Int] = []
        for start in raws.indices where state[start] == 0 && raws[start].usable {
            path.removeAll(keepingCapacity: true)
            var node: Int? = start
            while let n = node, state[n] == 0 {
                state[n] = 1
                path.append(n)
                node = parentOf[n]
            }
            if let n = node, state[n] == 1, let from = path.firstIndex(of: n) {
                let members = Array(path[from...])
                let first = members.min()!
                let rotated = members.drop(while: { $0 != first }) + members.prefix(while: { $0 != first })
                out[first] = (rotated + [first]).map { raws[$0].id ?? "" }.joined(separator: " → ")
            }
            for n in path { state[n] = 2 }
        }
        return out
    }
}
