import JSON

// A view's `stack` member (docs/document.md, "Stack views"): read with the view, then checked
// against the other views once all are read, when the arranged views get their implied parent.

extension ViewParser {
    static let stackFields: Set<String> = [
        "axis", "arranged", "spacing", "distribution", "alignment", "layoutMarginsRelative", "baselineRelative",
    ]

    /// The `stack` member of view `id` at `at`; what can be checked alone (types, words, the
    /// arranged ids name views of the document, once each, not the stack itself). Members with
    /// problems keep their defaults (the document is refused anyway).
    mutating func parseStack(_ value: JSONValue, at: String, id: String, known: [String: Int]) -> StackSpec? {
        guard let o = reader.object(value, at: at) else { return nil }
        let before = reader.problems.count
        defer {
            // Members are read in a fixed order; problems are reported in the order they are written.
            if reader.problems.count - before > 1 {
                reader.problems[before...] = ArraySlice(inFieldOrder(Array(reader.problems[before...]), of: o, at: at))
            }
        }
        reader.rejectUnknownFields(o, at: at, allowed: Self.stackFields, place: "a stack")
        var stack = StackSpec()
        func word<T>(_ key: String, _ what: String, _ cases: [T]) -> T? where T: RawRepresentable, T.RawValue == String {
            guard let v = o[key] else { return nil }
            let w = reader.word(v, at: docPointer(at, key), what: what, choices: cases.map { ($0.rawValue, $0) })
            return w
        }
        if let a = word("axis", "stack axis", StackSpec.Axis.allCases) { stack.axis = a }
        if let d = word("distribution", "stack distribution", StackSpec.Distribution.allCases) { stack.distribution = d }
        if let a = word("alignment", "stack alignment", StackSpec.Alignment.allCases) { stack.alignment = a }
        if let v = o["spacing"] {
            if let s = reader.number(v, at: docPointer(at, "spacing")) { stack.spacing = s }
        }
        for key in ["layoutMarginsRelative", "baselineRelative"] {
            guard let v = o[key] else { continue }
            guard let b = reader.bool(v, at: docPointer(at, key)) else { continue }
            if key == "layoutMarginsRelative" { stack.layoutMarginsRelative = b } else { stack.baselineRelative = b }
        }
        // UIKit documents the baseline alignments as valid only for horizontal stacks (a vertical
        // stack's views sit one above the other: their baselines cannot line up).
        if stack.axis == .vertical && stack.alignment.isBaseline {
            reader.report(docPointer(at, "alignment"), .invalidValue,
                          "alignment '\(stack.alignment.rawValue)' needs a horizontal stack; a vertical stack aligns "
                          + "fill, leading, center or trailing")
        }
        if let v = o["arranged"] {
            let p = docPointer(at, "arranged")
            if case .array(let ids) = v {
                var seen = Set<String>()
                for (i, item) in ids.enumerated() {
                    let ip = docPointer(p, i)
                    guard let a = reader.string(item, at: ip) else { continue }
                    if known[a] == nil {
                        reader.report(ip, .unknownView, "arranged view '\(a)' is not a view of this document")
                    } else if a == id {
                        reader.report(ip, .invalidArrangement, "a stack view cannot arrange itself ('\(id)')")
                    } else if !seen.insert(a).inserted {
                        reader.report(ip, .invalidArrangement, "'\(a)' is arranged twice in this stack")
                    } else {
                        stack.arranged.append(a)
                    }
                }
            } else {
                reader.typeMismatch(v, expected: "an array of view ids", at: p)
            }
        }
        // Kept with the problems too: the views it does arrange are checked against other stacks.
        return stack
    }

    /// Checks every stack against the other views and gives each arranged view without `parent`
    /// its stack as parent (UIKit's `addArrangedSubview` makes the view a subview of the stack).
    /// An arranged view that is a guide (`not_for_guide`), has another parent or is arranged by two
    /// stacks (`invalid_arrangement`), or is an ancestor of its stack (`parent_cycle`) is a problem
    /// at `/views/<stack>/stack/arranged/<i>`.
    mutating func resolveStacks(_ raws: [RawView], buckets: inout [[Problem]]) {
        var position = [String: Int](minimumCapacity: views.count)
        for (i, v) in views.enumerated() { position[v.id] = i }
        var rawOf = [String: Int](minimumCapacity: raws.count)
        for (i, r) in raws.enumerated() where r.usable { if let id = r.id, rawOf[id] == nil { rawOf[id] = i } }
        var arrangedBy: [String: String] = [:]
        for s in views.indices {
            guard let stack = views[s].stack, let r = rawOf[views[s].id] else { continue }
            let stackID = views[s].id
            let base = docPointer(docPointer(raws[r].pointer, "stack"), "arranged")
            var problems: [Problem] = []
            // Indices into the written array: the parser kept only valid ids, in order.
            let written = (raws[r].object?["stack"]?["arranged"]?.arrayValue ?? []).map { $0.stringValue }
            for id in stack.arranged {
                let at = docPointer(base, written.firstIndex(of: id) ?? 0)
                guard let a = position[id] else { continue }
                if views[a].kind == .guide {
                    problems.append(Problem(at, .notForGuide, "'\(id)' is a layout guide; a stack arranges views"))
                } else if let other = arrangedBy[id] {
                    problems.append(Problem(at, .invalidArrangement,
                        "'\(id)' is arranged by stack '\(other)' already; a view has one parent"))
                } else if let parent = views[a].parent, parent != stackID {
                    problems.append(Problem(at, .invalidArrangement,
                        "'\(id)' has parent '\(parent)', but an arranged view's parent is its stack view: "
                        + "leave its parent out or set it to '\(stackID)'"))
                } else if views[a].parent == nil, isAncestor(id, of: stackID, position: position) {
                    problems.append(Problem(at, .parentCycle,
                        "'\(id)' is '\(stackID)' or one of its ancestors; arranging it would make parents a cycle"))
                } else {
                    // Implied (or given) parent: the stack.
                    views[a].parent = stackID
                }
                arrangedBy[id] = arrangedBy[id] ?? stackID
            }
            if !problems.isEmpty {
                buckets[r] = inFieldOrder(buckets[r] + problems, of: raws[r].object ?? JSONObject(), at: raws[r].pointer)
                // The arranged view's place in the tree is not what the document says.
                hierarchyBroken = true
            }
        }
    }

    /// Whether `id` is `view` or one of its ancestors (bounded: a broken tree ends the walk).
    private func isAncestor(_ id: String, of view: String, position: [String: Int]) -> Bool {
        var current: String? = view
        var steps = 0
        while let c = current, steps <= views.count {
            if c == id { return true }
            current = position[c].flatMap { views[$0].parent }
            steps += 1
        }
        return false
    }
}
