import Cassowary
import LayoutModel

extension LayoutSystem {
    /// The variables of a view, created on first use.
    mutating func variables(for id: String) -> ViewVariables {
        if let v = variables[id] { return v }
        let v = ViewVariables(minX: solver.addVariable(), minY: solver.addVariable(),
                              width: solver.addVariable(), height: solver.addVariable())
        variables[id] = v
        return v
    }

    /// Compiles a document into solver-level constraints in processing order (spec section 1):
    /// first what views generate (frame fields, then intrinsic size) in view order, then the
    /// constraint entries in document order.
    /// - Parameter index: `document.views`' ids → position.
    /// - Returns: the constraints, and where each view's and each entry's start (`viewStart`,
    ///   `entryStart`: one more element than views / entries, the last one the end).
    mutating func compile(_ document: Document, index: [String: Int], activation: ActivationContext)
        -> (compiled: [CompiledConstraint], viewStart: [Int32], entryStart: [Int32]) {
        var out: [CompiledConstraint] = []
        // Exactly what the loops below append: a session keeps this array.
        var count = 0
        for view in document.views {
            let f = view.frame
            count += view.isRoot ? 4 : [f.x, f.y, f.width, f.height].reduce(0) { $0 + ($1 == nil ? 0 : 1) }
            count += (view.intrinsicWidth == nil ? 0 : 2) + (view.intrinsicHeight == nil ? 0 : 2)
            if view.text != nil { count += view.intrinsicWidth == nil ? 4 : 2 }
        }
        for entry in document.constraints { count += entry.items.count }
        out.reserveCapacity(count)
        var viewStart: [Int32] = [], entryStart: [Int32] = []
        viewStart.reserveCapacity(document.views.count + 1)
        entryStart.reserveCapacity(document.constraints.count + 1)
        for view in document.views {
            viewStart.append(Int32(out.count))
            compileView(view, into: &out)
            if view.stack != nil { compileStack(of: viewStart.count - 1, views: document.views, index: index,
                                                direction: document.direction, into: &out) }
        }
        viewStart.append(Int32(out.count))
        // Every view has its variables now; entries find them by position (one hash per term).
        let vars = document.views.map { variables[$0.id] }
        var scratch = EntryScratch()
        for entry in document.constraints {
            entryStart.append(Int32(out.count))
            Self.compileEntry(entry, direction: document.direction, views: document.views, index: index,
                              variables: vars, activation: activation, scratch: &scratch, into: &out)
        }
        entryStart.append(Int32(out.count))
        return (out, viewStart, entryStart)
    }

    /// The constraints a stack view generates (after its frame and intrinsic size): its
    /// `StackCompiler` items in terms of the solver's variables.
    /// - Parameter stack: the stack view's position in `views`.
    mutating func compileStack(of stack: Int, views: [View], index: [String: Int], direction: LayoutDirection,
                               into out: inout [CompiledConstraint]) {
        guard let compiler = StackCompiler(stack: stack, views: views, index: index) else { return }
        let id = views[stack].id
        for item in compiler.items() {
            var terms: [Term] = []
            var constant = item.constant
            for t in item.terms {
                AnchorTranslation.accumulate(t.attribute, of: views[t.view], variables(for: views[t.view].id),
                                             direction: direction, coefficient: t.coefficient,
                                             into: &terms, constant: &constant)
            }
            out.append(CompiledConstraint(key: .stack(id, item.name), terms: AnchorTranslation.canonical(terms),
                                          constant: constant, relation: item.relation.solverRelation,
                                          priority: item.priority, active: item.active))
        }
    }

    /// The constraints a view generates: frame fields, then intrinsic size.
    mutating func compileView(_ view: View, into out: inout [CompiledConstraint]) {
        let v = variables(for: view.id)
        func fixed(_ field: CompiledConstraint.ViewField, _ terms: [Term], _ value: Double,
                   priority: Double = Priority.required, root: Bool = false) {
            out.append(CompiledConstraint(key: .view(view.id, field), terms: AnchorTranslation.canonical(terms),
                                          constant: -value, relation: .equal, priority: priority,
                                          active: true, isRootSize: root))
        }
        func intrinsic(_ field: CompiledConstraint.ViewField, _ x: Variable, _ value: Double,
                       _ relation: Cassowary.Relation, _ priority: Double) {
            out.append(CompiledConstraint(key: .view(view.id, field), terms: [Term(x)], constant: -value,
                                          relation: relation, priority: priority, active: true))
        }
        if let parentID = view.parent {
            let p = variables(for: parentID)
            if let x = view.frame.x { fixed(.x, [Term(v.minX), Term(p.minX, -1)], x) }
            if let y = view.frame.y { fixed(.y, [Term(v.minY), Term(p.minY, -1)], y) }
            if let w = view.frame.width { fixed(.width, [Term(v.width)], w) }
            if let h = view.frame.height { fixed(.height, [Term(v.height)], h) }
        } else {
            fixed(.x, [Term(v.minX)], view.frame.x ?? 0)
            fixed(.y, [Term(v.minY)], view.frame.y ?? 0)
            // A given root size is an input (changed later by edit suggestion); an omitted one is
            // the fitting size: pulled to its smallest value at priority 50.
            if let w = view.frame.width { fixed(.width, [Term(v.width)], w, root: true) }
            else { fixed(.width, [Term(v.width)], 0, priority: Priority.fittingSize) }
            if let h = view.frame.height { fixed(.height, [Term(v.height)], h, root: true) }
            else { fixed(.height, [Term(v.height)], 0, priority: Priority.fittingSize) }
        }
        if let w = view.intrinsicWidth {
            intrinsic(.widthMax, v.width, w, .lessOrEqual, view.hugging.horizontal)
            intrinsic(.widthMin, v.width, w, .greaterOrEqual, view.compressionResistance.horizontal)
        }
        if let h = view.intrinsicHeight {
            intrinsic(.heightMax, v.height, h, .lessOrEqual, view.hugging.vertical)
            intrinsic(.heightMin, v.height, h, .greaterOrEqual, view.compressionResistance.vertical)
        }
        if let text = view.text { compileText(view, text, v, into: &out) }
    }

    /// The constraints an entry makes, one per item, with their activation.
    /// - Parameters:
    ///   - index: `views`' ids → position.
    ///   - variables: each view's variables, by position.
    static func compileEntry(_ entry: ConstraintEntry, direction: LayoutDirection, views: [View], index: [String: Int],
                             variables: [ViewVariables?], activation: ActivationContext,
                             into out: inout [CompiledConstraint]) {
        var scratch = EntryScratch()
        compileEntry(entry, direction: direction, views: views, index: index, variables: variables,
                     activation: activation, scratch: &scratch, into: &out)
    }

    /// What compiling one entry after another reuses.
    struct EntryScratch {
        /// The raw terms of the item being compiled, so that a document's compilation allocates
        /// one array per constraint (its canonical terms), not two.
        var terms: [Term] = []
        /// The last two views looked up, with their positions: consecutive entries mostly tie the
        /// same two views (a view's edges to its parent, one after another), and comparing a
        /// short id costs less than hashing it. `==` is the dictionary's own key equality, so a
        /// hit is the position `index` would give.
        var recent: (String, Int)? = nil
        var older: (String, Int)? = nil

        init() { terms.reserveCapacity(16) }

        mutating func position(of view: String, in index: [String: Int]) -> Int? {
            if let r = recent, r.0 == view { return r.1 }
            if let o = older, o.0 == view { return o.1 }
            guard let i = index[view] else { return nil }
            older = recent
            recent = (view, i)
            return i
        }
    }

    static func compileEntry(_ entry: ConstraintEntry, direction: LayoutDirection, views: [View], index: [String: Int],
                             variables: [ViewVariables?], activation: ActivationContext,
                             scratch: inout EntryScratch, into out: inout [CompiledConstraint]) {
        for (k, item) in entry.items.enumerated() {
            scratch.terms.removeAll(keepingCapacity: true)
            var constant = item.constant
            for t in item.terms {
                guard let i = scratch.position(of: t.anchor.view, in: index), let v = variables[i] else { continue }
                AnchorTranslation.accumulate(t.anchor.attribute, of: views[i], v,
                                             direction: direction, coefficient: t.coefficient,
                                             into: &scratch.terms, constant: &constant)
            }
            out.append(CompiledConstraint(key: .entry(entry.id, k), terms: AnchorTranslation.canonical(scratch.terms),
                                          constant: constant, relation: item.relation.solverRelation,
                                          priority: item.priority, active: activation.isActive(entry, item)))
        }
    }
}

extension LayoutModel.Relation {
    var solverRelation: Cassowary.Relation {
        switch self {
        case .equal: return .equal
        case .lessOrEqual: return .lessOrEqual
        case .greaterOrEqual: return .greaterOrEqual
        }
    }
}

extension LayoutSystem {
    /// Where the constraint `key` sits in `compiled`, if it exists.
    func position(of key: CompiledConstraint.Key) -> Int? {
        switch key {
        case .view(let id, let field):
            guard let i = viewIndex[id] else { return nil }
            for p in Int(viewStart[i])..<Int(viewStart[i + 1]) {
                if case .view(_, field) = compiled[p].key { return p }
            }
            return nil
        case .stack(let id, _), .text(let id, _):
            guard let i = viewIndex[id] else { return nil }
            for p in Int(viewStart[i])..<Int(viewStart[i + 1]) where compiled[p].key == key { return p }
            return nil
        case .entry(let id, let k):
            guard let e = entryIndex[id], k >= 0, Int(entryStart[e]) + k < Int(entryStart[e + 1]) else { return nil }
            return Int(entryStart[e]) + k
        }
    }
}
