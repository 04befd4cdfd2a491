/// The rules of spec section 3 that every solver-level constraint must obey, whatever form it was
/// written in (Auto Layout rejects these when a constraint is created).
///
/// Codes: `no_anchor` (every term cancelled, or none was written: `a.width - a.width == 0`),
/// `unknown_view`, `cross_axis`, `mixed_direction`, `position_constant`, `not_for_guide`,
/// `no_common_root`. Problems carry `pointer` (relative to the entry).
public enum ConstraintRules {
    /// Problems of one item; empty when it is acceptable.
    public static func check(_ item: LinearConstraint, context: CompileContext,
                             pointer: String = "") -> [EntryProblem] {
        func problem(_ code: String, _ detail: String) -> EntryProblem {
            EntryProblem(pointer: pointer, code: code, detail: detail)
        }
        guard !item.terms.isEmpty else {
            return [problem(ConstraintProblemCode.noAnchor,
                            "the constraint relates no anchor (its terms cancel out): \(describe(item))")]
        }
        var problems: [EntryProblem] = []
        let anchors = item.terms.map(\.anchor)
        let unknown = uniqueViews(anchors.map(\.view).filter { context.views[$0] == nil })
        for v in unknown {
            let near = context.views.suggestion(for: v)
            var p = problem(ConstraintProblemCode.unknownView, "no view '\(v)' in the document" + Suggestion.phrase(near))
            p.suggestion = near
            problems.append(p)
        }
        if !unknown.isEmpty { return problems }

        let positions = anchors.filter { !$0.attribute.isDimension }
        if let h = positions.first(where: { $0.attribute.axis == .horizontal }),
           let v = positions.first(where: { $0.attribute.axis == .vertical }) {
            problems.append(problem(ConstraintProblemCode.crossAxis,
                "\(h) is a horizontal position and \(v) a vertical one; they cannot be related in one constraint"))
        }
        if let d = anchors.first(where: { $0.attribute.isDirectional }),
           let p = anchors.first(where: { $0.attribute.isPhysicalHorizontal }) {
            problems.append(problem(ConstraintProblemCode.mixedDirection,
                "\(d) (leading/trailing) and \(p) (left/right) cannot be mixed in one constraint"))
        }
        if context.dialect != .mortar, anchors.count == 1, !anchors[0].attribute.isDimension {
            problems.append(problem(ConstraintProblemCode.positionConstant,
                "the position \(anchors[0]) cannot equal a bare constant; relate it to another anchor (e.g. \(anchors[0].view)'s superview)"))
        }
        for a in uniqueAnchors(anchors) where context.views[a.view]?.kind == .guide
            && (a.attribute.isMargin || a.attribute.isBaseline) {
            problems.append(problem(ConstraintProblemCode.notForGuide,
                "\(a): '\(a.view)' is a layout guide, which has no margins or baselines"))
        }
        let named = uniqueViews(item.views + anchors.map(\.view)).filter { context.views[$0] != nil }
        var rootOf: [String: String] = [:]
        for v in named {
            guard let r = root(of: v, views: context.views) else {
                problems.append(problem(ConstraintProblemCode.noCommonRoot,
                                        "the parents of '\(v)' form a cycle; it has no root"))
                return problems
            }
            rootOf[v] = r
        }
        if let first = named.first, let other = named.first(where: { rootOf[$0] != rootOf[first] }) {
            problems.append(problem(ConstraintProblemCode.noCommonRoot,
                "'\(first)' (root '\(rootOf[first]!)') and '\(other)' (root '\(rootOf[other]!)') share no root"))
        }
        return problems
    }

    /// Problems of all the items of one entry, each problem once (a composite's components often
    /// break the same rule).
    public static func check(_ items: [LinearConstraint], context: CompileContext,
                             pointer: String = "") -> [EntryProblem] {
        var out: [EntryProblem] = []
        for item in items {
            for p in check(item, context: context, pointer: pointer) where !out.contains(p) {
                out.append(p)
            }
        }
        return out
    }

    /// The root ancestor of `view` (itself for a root); nil when the parent chain does not end
    /// within as many steps as there are views (a cycle) or names an unknown view.
    public static func root(of view: String, views: ViewLookup) -> String? {
        var current = view
        var steps = 0
        while let parent = views[current]?.parent {
            steps += 1
            guard steps <= views.count, views[parent] != nil else { return nil }
            current = parent
        }
        return views[current] == nil ? nil : current
    }

    /// Mortar measures a position that equals a bare constant from the superview: left, right,
    /// centerX (and their margin forms) from its `left`, leading/trailing (and margins) from its
    /// `leading`, vertical positions from its `top`. In every other dialect, and for items that
    /// are not "one position anchor REL constant", the item is returned unchanged. A root has no
    /// superview: its positions are measured from 0 (the item is unchanged).
    public static func measuringFromSuperview(_ item: LinearConstraint, context: CompileContext)
        -> LinearConstraint {
        guard context.dialect == .mortar, item.terms.count == 1 else { return item }
        let term = item.terms[0]
        let attr = term.anchor.attribute
        guard !attr.isDimension, let parent = context.views[term.anchor.view]?.parent else { return item }
        let reference: Attribute = attr.axis == .vertical ? .top : (attr.isDirectional ? .leading : .left)
        var out = item
        out.terms.append(LinearTerm(Anchor(parent, reference), -term.coefficient))
        out.views = uniqueViews(item.views + [parent])
        return out
    }

    static func describe(_ item: LinearConstraint) -> String {
        var s = item.terms.map { "\(describeNumber($0.coefficient))·\($0.anchor)" }.joined(separator: " + ")
        if s.isEmpty { s = "0" }
        return "\(s) + \(describeNumber(item.constant)) \(item.relation.rawValue) 0"
    }

    private static func uniqueAnchors(_ anchors: [Anchor]) -> [Anchor] {
        var seen: Set<Anchor> = []
        return anchors.filter { seen.insert($0).inserted }
    }
}

extension ConstraintRules {
    /// Whether `check(item, context:)` finds no problem, decided over the document's tables
    /// (`table` describes `context.views`; `dialect` is `context.dialect`) without building the
    /// problem list. False sends the caller to `check`, which says what is wrong.
    static func passes(_ item: LinearConstraint, dialect: Dialect, table: ViewTable) -> Bool {
        let terms = item.terms
        guard !terms.isEmpty else { return false }
        var horizontalPosition = false, verticalPosition = false, directional = false, physical = false
        var commonRoot = -1
        for t in terms {
            guard let i = table.index[t.anchor.view] else { return false }
            let a = t.anchor.attribute
            if !a.isDimension {
                if a.axis == .horizontal { horizontalPosition = true } else { verticalPosition = true }
            }
            if a.isDirectional { directional = true }
            if a.isPhysicalHorizontal { physical = true }
            if table.isGuide[i] && (a.isMargin || a.isBaseline) { return false }
            let r = table.root[i]
            guard r >= 0, commonRoot < 0 || r == commonRoot else { return false }
            commonRoot = r
        }
        if (horizontalPosition && verticalPosition) || (directional && physical) { return false }
        if dialect != .mortar, terms.count == 1, !terms[0].anchor.attribute.isDimension { return false }
        // `named` of `check`: the item's views that the document knows, besides the anchors' views.
        for v in item.views {
            guard let i = table.index[v] else { continue }
            guard table.root[i] == commonRoot else { return false }
        }
        return true
    }
}

