import Cassowary
import JSON
import LayoutModel

// Explain (issue 31): why a view's attribute has its value. The solver names the constraints its
// row depends on (`Solver.explanation(of:)`); here they become the document's constraints again,
// in the order a person follows them, from the attribute back to the fixed frames.

extension LayoutSystem {
    /// Explains `view.attribute` (any attribute a constraint can name, aliases included).
    /// - Parameter written: the document's constraint entry at a position, as written (its member
    ///   of the canonical `constraints`): an entry that makes one constraint is shown with its
    ///   own text (an expression string, `expr`, `format`); without it, every constraint is
    ///   written out from its terms.
    public func explain(view id: String, attribute name: String,
                        written: ((Int) -> JSONValue?)? = nil) -> Result<ExplainAnswer, ExplainError> {
        guard let vi = viewIndex[id], let vars = variables[id] else {
            return .failure(.unknownView(id, suggestion: Suggestion.nearest(id, among: document.views.lazy.map(\.id))))
        }
        guard let kind = AnchorVocabulary.resolve(name) else {
            return .failure(.unknownAttribute(name, suggestion: AnchorVocabulary.suggestion(for: name)))
        }
        guard case .single(let attribute) = kind else {
            return .failure(.compositeAttribute(name, components: kind.components.map(\.rawValue)))
        }
        var terms: [Term] = []
        var constant = 0.0
        AnchorTranslation.accumulate(attribute, of: document.views[vi], vars, direction: document.direction,
                                     coefficient: 1, into: &terms, constant: &constant)
        terms = AnchorTranslation.canonical(terms)
        let expression = Expression(terms, constant: constant)
        let renderer = ConstraintRenderer(views: document.views, viewVariables: viewVariables, viewOfVariable: viewOfVariable)
        let explanation = solver.explanation(of: expression)
        let positions = deciding(explanation)
        let ordered = chainOrder(positions, from: terms, renderer)
        var steps = ordered.map { p, subject in
            renderer.equation(compiled[p].terms, constant: compiled[p].constant, relation: compiled[p].relation,
                              subject: subject, equals: "=") + " (" + note(p) + ")"
        }
        for v in explanation.parameters {
            steps.append(ConstraintRenderer.sum(renderer.pieces([Term(v)]), constant: 0) + " (no constraint fixes it)")
        }
        // Every free direction of the system is the costliest part of an answer. When the kept
        // ambiguity is current and names no view, none moves a view's variable (a root that moved
        // would be ambiguous, and a child that moves with its parent moves its parent), so none
        // moves the explained anchor: the general path would find none.
        let directions = skipsFreeDirections ? [] : solver.freeDirections(moving: expression)
        var moved = Set<Int>()
        for d in directions { for (v, _) in d.rates { if let i = renderer.view(of: v) { moved.insert(i) } } }
        let describe = { (p: Int) in self.describe(p, renderer, written) }
        return .success(ExplainAnswer(
            view: id, attribute: attribute.rawValue,
            value: Self.clean(value(of: expression)),
            ambiguous: !directions.isEmpty,
            constraints: ordered.map { describe($0.position) },
            chain: steps.joined(separator: " ; "),
            freeViews: moved.sorted().map { document.views[$0].id },
            broken: breaks(determining: Set(positions), target: Set(terms.map(\.variable)), describe: describe)))
    }

    /// The positions of the constraints that decide a value: those of the solver's row
    /// (`explanation`) and every active constraint parallel to one of them (the same variables,
    /// proportional coefficients) that holds with equality, ascending.
    ///
    /// Equally tight constraints (`a.width <= 10` twice, `a.width == 10` with `a.width <= 10`, an
    /// intrinsic size's hugging and compression resistance at the size) hold the value together:
    /// which one the solver's row names depends on the order the session's edits reached the
    /// state, so a fresh solve of the same document could name the other. Naming all of them is
    /// the rule (docs/http.md, "Explain"): the answer is the document's, not the history's, and it
    /// is what an Auto Layout user looking for what pins a view needs to see (removing one of them
    /// alone does not free the view).
    func deciding(_ explanation: Explanation) -> [Int] {
        var out = explanation.constraints.compactMap { positionOfConstraint[$0.index].map(Int.init) }
        if out.isEmpty { return out }
        // The named constraints by their first variable (terms sorted by variable), marked by
        // index: a constraint is compared only with the named ones that start with its first
        // variable, and only when one does (one array read for most of a document).
        var marked = [Bool](repeating: false, count: viewOfVariable.count)
        var byFirst: [Int32: [[Term]]] = [:]
        // Compiled terms are canonical: ascending by variable.
        for p in out {
            let terms = compiled[p].terms
            guard let first = terms.first, Int(first.variable.index) < marked.count else { continue }
            marked[Int(first.variable.index)] = true
            byFirst[first.variable.index, default: []].append(terms)
        }
        if byFirst.isEmpty { return out }
        let known = Set(out)
        for p in compiled.indices {
            let c = compiled[p]
            guard let first = c.terms.first?.variable,
                  Int(first.index) < marked.count, marked[Int(first.index)],
                  c.active, solverIDs[p] != nil, !known.contains(p) else { continue }
            guard byFirst[first.index]?.contains(where: { Self.parallel($0, c.terms) }) == true else { continue }
            // Holds with equality, as `breaks` counts a constraint satisfied.
            guard abs(value(of: c.expression)) <= Self.satisfiedTolerance else { continue }
            out.append(p)
        }
        return out.sorted()
    }

    /// A constraint held to within this is satisfied: the solver's values carry rounding.
    static let satisfiedTolerance = 1e-7

    /// The same variables (both sorted by variable) with proportional coefficients.
    static func parallel(_ a: [Term], _ b: [Term]) -> Bool {
        guard a.count == b.count, let a0 = a.first, let b0 = b.first, b0.coefficient != 0 else { return false }
        let ratio = a0.coefficient / b0.coefficient
        return zip(a, b).allSatisfy { x, y in
            x.variable == y.variable && abs(x.coefficient - ratio * y.coefficient) <= 1e-9 * max(1, abs(x.coefficient))
        }
    }

    /// The kept `diagnostics.ambiguous` says no free direction moves a view (see `explain`).
    var skipsFreeDirections: Bool { ambiguityIsCurrent && ambiguous.isEmpty }

    /// `Σ terms + constant` at the current solution.
    private func value(of e: Expression) -> Double {
        e.terms.reduce(e.constant) { $0 + $1.coefficient * solver.value($1.variable) }
    }

    /// The constraints at `positions` in the order a reader follows them: breadth first from the
    /// explained anchor's view, each constraint reached through a view it shares with one already
    /// shown (that view is its `subject`, written on the left); ties in processing order.
    private func chainOrder(_ positions: [Int], from terms: [Term],
                            _ renderer: ConstraintRenderer) -> [(position: Int, subject: Int?)] {
        let sorted = positions.sorted()
        // Each view's constraints among them, ascending: a value at the end of a long chain has
        // as many constraints as views, and looking each view's up (not scanning all that remain
        // for each view reached) keeps the ordering linear in them.
        var byView: [Int: [Int]] = [:]
        for (k, p) in sorted.enumerated() {
            var last = -1
            for v in compiled[p].terms.compactMap({ renderer.view(of: $0.variable) }).sorted() where v != last {
                last = v
                byView[v, default: []].append(k)
            }
        }
        var done = [Bool](repeating: false, count: sorted.count)
        var left = sorted.count
        var queue: [Int] = []
        var seen = Set<Int>()
        func reach(_ terms: [Term]) {
            for t in terms { if let v = renderer.view(of: t.variable), seen.insert(v).inserted { queue.append(v) } }
        }
        reach(terms)
        var out: [(position: Int, subject: Int?)] = []
        var head = 0, first = 0
        while left > 0 {
            guard head < queue.count else {
                // Not connected through views to what is shown so far (a constraint over variables
                // of no view): shown as it is.
                while done[first] { first += 1 }
                done[first] = true
                left -= 1
                out.append((sorted[first], nil))
                reach(compiled[sorted[first]].terms)
                continue
            }
            let subject = queue[head]
            head += 1
            for k in byView[subject] ?? [] where !done[k] {
                done[k] = true
                left -= 1
                out.append((sorted[k], subject))
                reach(compiled[sorted[k]].terms)
            }
        }
        return out
    }

    /// Where the constraint at `p` comes from, for the chain: the entry's id (with its activation
    /// rule when it has one), or a generated constraint's origin.
    private func note(_ p: Int) -> String {
        let c = compiled[p]
        if case .entry(let id, _) = c.key {
            guard let e = entryIndex[id], let rule = Self.activationNote(document.constraints[e].activation) else { return id }
            return "\(id), \(rule)"
        }
        return GeneratedConstraint(c.key, view: { self.viewIndex[$0].map { self.document.views[$0] } })?.note ?? c.ownerID
    }

    /// The constraint at `p` as an explanation lists it.
    private func describe(_ p: Int, _ renderer: ConstraintRenderer, _ written: ((Int) -> JSONValue?)?) -> ExplainedConstraint {
        let c = compiled[p]
        // Written out only where it is shown: most entries are shown in their own words.
        var rendered: String { renderer.equation(c.terms, constant: c.constant, relation: c.relation, subject: nil) }
        var text: String
        switch c.key {
        case .entry(let id, _):
            // The document's own words when they are this constraint's alone; a component of a
            // visual format or a composite is written out (the whole format would not say which).
            if let e = entryIndex[id], document.constraints[e].items.count == 1,
               let member = written?(e), let own = Self.writtenText(of: member) {
                text = own
            } else {
                text = rendered
            }
            if let e = entryIndex[id], let rule = Self.activationNote(document.constraints[e].activation) {
                text += " (\(rule))"
            }
        case .view, .stack:
            text = rendered + " (" + note(p) + ")"
        case .text(let view, let field):
            // Text's own words say how many lines the height holds at the solved width.
            text = textConstraintDescription(view: view, field: field) ?? rendered + " (" + note(p) + ")"
        }
        return ExplainedConstraint(id: c.ownerID, text: text, priority: c.priority)
    }

    /// A constraint entry's text as the document wrote it: an expression string, or an object's
    /// `expr` or `format`; nil for the other forms (written out from their terms instead).
    public static func writtenText(of member: JSONValue) -> String? {
        switch member {
        case .string(let s): return s
        case .object(let o):
            if case .string(let s)? = o["expr"] { return s }
            if case .string(let s)? = o["format"] { return s }
            return nil
        default: return nil
        }
    }

    /// An activation rule in words; nil for `always`.
    static func activationNote(_ a: Activation) -> String? {
        switch a {
        case .always: return nil
        case .manual: return "activation: manual"
        case .bothVisible: return "activation: bothVisible"
        case .firstInvisible: return "activation: firstInvisible"
        case .delegate: return "activation: delegate"
        case .when(let p): return "active when " + predicateText(p)
        }
    }

    static func predicateText(_ p: Predicate) -> String {
        switch p {
        case .visible(let v): return "visible(\(v))"
        case .hidden(let v): return "hidden(\(v))"
        case .flag(let f): return "flag(\(f))"
        case .compare(let view, let dimension, let op, let value):
            return "\(view).\(dimension.rawValue) \(op.rawValue) \(ConstraintRenderer.number(value))"
        case .not(let q): return "!(\(predicateText(q)))"
        case .and(let a, let b): return "(\(predicateText(a)) && \(predicateText(b)))"
        case .or(let a, let b): return "(\(predicateText(a)) || \(predicateText(b)))"
        case .constant(let b): return b ? "true" : "false"
        }
    }

    /// The constraints that do not hold as written among those that decide the value, and among
    /// those that name one of the explained anchor's variables: broken required ones with the
    /// conflict set the solver found, unsatisfied optional ones with what holds them off.
    private func breaks(determining: Set<Int>, target: Set<Variable>,
                        describe: (Int) -> ExplainedConstraint) -> [ExplainedBreak] {
        var conflicts: [ConstraintID: [ConstraintID]] = [:]
        if solver.brokenCount > 0 { for (id, others) in solver.brokenConstraints { conflicts[id] = others } }
        let tolerance = Self.satisfiedTolerance
        var out: [ExplainedBreak] = []
        // The anchor has at most four variables: compared in a list, not hashed for every term of
        // every constraint (this scan is most of an answer's cost in a large document).
        let targets = Array(target)
        func names(_ p: Int) -> Bool { compiled[p].terms.contains { targets.contains($0.variable) } }
        var candidates = Array(determining)
        for p in compiled.indices where names(p) { candidates.append(p) }
        candidates.sort()
        var previous = -1
        for p in candidates where p != previous {
            previous = p
            let c = compiled[p]
            guard c.active, let id = solverIDs[p] else { continue }
            let names = names(p)
            if let others = conflicts[id] {
                out.append(ExplainedBreak(constraint: describe(p), required: true,
                                          conflictsWith: others.compactMap { positionOfConstraint[$0.index].map { describe(Int($0)) } }))
                continue
            }
            guard names, c.priority < Priority.required else { continue }
            let v = value(of: c.expression)
            let violated: Bool
            switch c.relation {
            case .equal: violated = abs(v) > tolerance
            case .lessOrEqual: violated = v > tolerance
            case .greaterOrEqual: violated = v < -tolerance
            }
            guard violated else { continue }
            let holding = deciding(solver.explanation(of: c.expression)).filter { $0 != p }
            out.append(ExplainedBreak(constraint: describe(p), required: false, conflictsWith: holding.map { describe($0) }))
        }
        return out
    }
}
