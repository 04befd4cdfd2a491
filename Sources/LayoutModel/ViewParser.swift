import JSON

/// Parses the document's `views` (object keyed by id, or array of objects with `id`), reporting every
/// problem in document order.
struct ViewParser {
    /// One entry of `views` as written, before its fields are read.
    struct RawView {
        var id: String?
        var pointer: String
        var object: JSONObject?
        /// False for an invalid or duplicate id: the entry is validated but not part of the document.
        var usable: Bool
        var isArrayForm: Bool
    }

    static let fields: Set<String> = [
        "id", "parent", "kind", "frame", "hidden", "alpha", "intrinsicSize", "hugging",
        "compressionResistance", "margins", "baseline",
    ]
    /// Fields a layout guide cannot have: it has no intrinsic size, margins, baselines or visibility.
    static let notForGuide: Set<String> = ["intrinsicSize", "margins", "baseline", "hidden", "alpha"]

    var reader: FieldReader
    /// Views with a valid, first-seen id, in document order.
    var views: [View] = []
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
            for (key, v) in o.entries {
                let p = docPointer(base, key)
                raws.append(RawView(id: key, pointer: p, object: reader.object(v, at: p), usable: true,
                                    isArrayForm: false))
                buckets.append(take())
            }
        case .array(let a):
            guard checkCount(a.count, at: base) else { return }
            for (i, v) in a.enumerated() {
                raws.append(arrayEntry(v, at: docPointer(base, i)))
                buckets.append(take())
            }
        default:
            reader.typeMismatch(value, expected: "an object keyed by view id, or an array of views", at: base)
            return
        }
        checkIDs(&raws, buckets: &buckets)
        let known = Dictionary(raws.compactMap { $0.usable ? ($0.id!, ()) : nil }, uniquingKeysWith: { a, _ in a })
        let cycles = ParentCycles.find(in: raws)
        for (i, raw) in raws.enumerated() {
            guard let object = raw.object else {
                if raw.usable, let id = raw.id { views.append(View(id: id)) }
                continue
            }
            let view = parseFields(object, raw: raw, known: known, cycle: cycles[i])
            buckets[i] = inFieldOrder(buckets[i] + take(), of: object, at: raw.pointer)
            if raw.usable { views.append(view) }
        }
        reader.problems = buckets.flatMap { $0 }
        if !cycles.isEmpty { hierarchyBroken = true }
    }

    /// Removes and returns the problems reported so far.
    private mutating func take() -> [Problem] {
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

    private mutating func arrayEntry(_ value: JSONValue, at p: String) -> RawView {
        guard let o = reader.object(value, at: p) else {
            return RawView(id: nil, pointer: p, object: nil, usable: false, isArrayForm: true)
        }
        var id: String?
        if let v = o["id"] {
            id = reader.string(v, at: docPointer(p, "id"))
        } else {
            reader.report(docPointer(p, "id"), .missingField, "a view in an array needs an \"id\"")
        }
        return RawView(id: id, pointer: p, object: o, usable: id != nil, isArrayForm: true)
    }

    /// Reports invalid and duplicate ids into each entry's bucket; such entries become unusable.
    private func checkIDs(_ raws: inout [RawView], buckets: inout [[Problem]]) {
        var seen = Set<String>()
        for i in raws.indices {
            guard let id = raws[i].id else { continue }
            let at = raws[i].isArrayForm ? docPointer(raws[i].pointer, "id") : raws[i].pointer
            var found: Problem?
            if let why = IDRules.problem(with: id, what: "a view") {
                found = Problem(at, .invalidID, why)
            } else if !seen.insert(id).inserted {
                found = Problem(at, .duplicateID, "view id '\(id)' is used by an earlier view")
            }
            if let found {
                raws[i].usable = false
                buckets[i].append(found)
            }
        }
    }

    private mutating func parseFields(_ o: JSONObject, raw: RawView, known: [String: Void],
                                      cycle: String?) -> View {
        let base = raw.pointer
        var view = View(id: raw.id ?? "")
        // The kind decides which fields are allowed; its own problems are reported in field order.
        if case .string("guide")? = o["kind"] { view.kind = .guide }
        for (key, value) in o.entries {
            let p = docPointer(base, key)
            if view.kind == .guide && Self.notForGuide.contains(key) {
                reader.report(p, .notForGuide,
                              "'\(view.id)' is a layout guide; a guide has no \(key) (remove the field or make it a view)")
                continue
            }
            switch key {
            case "id":
                if !raw.isArrayForm, let s = reader.string(value, at: p), s != raw.id {
                    reader.report(p, .invalidValue, "\"id\" is '\(s)' but the view's key is '\(raw.id ?? "")'")
                }
            case "kind":
                _ = reader.word(value, at: p, what: "view kind", choices: [("view", ViewKind.view), ("guide", .guide)])
            case "parent": parseParent(value, at: p, view: &view, known: known, cycle: cycle)
            case "frame":
                if let f = reader.numberFields(value, at: p, keys: ["x", "y", "width", "height"],
                                               place: "a frame", sizes: ["width", "height"]) {
                    view.frame = FrameSpec(x: f["x"], y: f["y"], width: f["width"], height: f["height"])
                }
            case "hidden": view.hidden = reader.bool(value, at: p) ?? false
            case "alpha":
                if let a = reader.number(value, at: p) {
                    if a < 0 || a > 1 {
                        reader.report(p, .outOfRange, "alpha must be between 0 and 1, got \(formatNumber(a))")
                    } else {
                        view.alpha = a
                    }
                }
            case "intrinsicSize":
                if let s = reader.numberFields(value, at: p, keys: ["width", "height"], place: "intrinsicSize",
                                               sizes: ["width", "height"]) {
                    view.intrinsicWidth = s["width"]; view.intrinsicHeight = s["height"]
                }
            case "hugging":
                if let a = axisPriorities(value, at: p, defaults: view.hugging) { view.hugging = a }
            case "compressionResistance":
                if let a = axisPriorities(value, at: p, defaults: view.compressionResistance) {
                    view.compressionResistance = a
                }
            case "margins":
                if let m = reader.numberFields(value, at: p, keys: ["top", "left", "bottom", "right"],
                                               place: "margins") {
                    view.margins = Insets(top: m["top"] ?? 8, left: m["left"] ?? 8,
                                          bottom: m["bottom"] ?? 8, right: m["right"] ?? 8)
                }
            case "baseline":
                if let b = reader.numberFields(value, at: p, keys: ["first", "last"], place: "baseline") {
                    view.firstBaseline = b["first"]; view.lastBaseline = b["last"] ?? 0
                }
            default:
                reader.report(p, .unknownField, "unknown view field '\(key)'; allowed: "
                              + Self.fields.subtracting(raw.isArrayForm ? [] : ["id"]).sorted().joined(separator: ", "))
            }
        }
        return view
    }

    private mutating func parseParent(_ value: JSONValue, at p: String, view: inout View,
                                      known: [String: Void], cycle: String?) {
        guard let parent = reader.string(value, at: p) else { return }
        if known[parent] == nil {
            reader.report(p, .unknownView, "parent '\(parent)' is not a view of this document")
            hierarchyBroken = true
            return
        }
        if let cycle { reader.report(p, .parentCycle, "parents form a cycle: \(cycle)") }
        view.parent = parent
    }

    private mutating func axisPriorities(_ value: JSONValue, at p: String,
                                         defaults: AxisPriorities) -> AxisPriorities? {
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
    static func find(in raws: [ViewParser.RawView]) -> [Int: String] {
        var index: [String: Int] = [:]
        for (i, r) in raws.enumerated() where r.usable { if let id = r.id { index[id] = i } }
        var parentOf = [Int?](repeating: nil, count: raws.count)
        for (i, r) in raws.enumerated() where r.usable {
            if case .string(let p)? = r.object?["parent"] { parentOf[i] = index[p] }
        }
        // 0 = unvisited, 1 = on the current walk, 2 = done.
        var state = [UInt8](repeating: 0, count: raws.count)
        var out: [Int: String] = [:]
        for start in raws.indices where state[start] == 0 && raws[start].usable {
            var path: [Int] = []
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
