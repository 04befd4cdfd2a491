import LayoutModel

/// SeaDog's activation rules (spec section 5), evaluated against one state of the document.
struct ActivationContext {
    /// The document's `delegate` and `flags` (not the document itself: holding it would make
    /// every edit of the system's document copy it).
    let delegate: [String: Bool]
    let flags: [String: Bool]
    /// View id → visible (not hidden, alpha > 0, every ancestor visible; a guide when its ancestors are).
    let visible: [String: Bool]
    let isGuide: Set<String>
    var rootInputs: [String: FrameSpec]
    /// A delegate constraint's last state, for entries the `delegate` map does not mention.
    let delegateMemory: [String: Bool]

    init(document: Document, delegateMemory: [String: Bool]) {
        self.delegate = document.delegate
        self.flags = document.flags
        self.delegateMemory = delegateMemory
        // Visibility matters only to rules that look at it; most documents have none. The views by
        // id and the guides are read only by those rules, so only then are they built (a copy of
        // every view into a dictionary was most of this context's cost).
        let needsVisibility = document.constraints.contains { Self.needsVisibility($0.activation) }
        self.hasVisibility = needsVisibility
        var byID: [String: View] = [:]
        var guides = Set<String>()
        var roots: [String: FrameSpec] = [:]
        for v in document.views {
            if needsVisibility {
                byID[v.id] = v
                if v.kind == .guide { guides.insert(v.id) }
            }
            if v.isRoot { roots[v.id] = v.frame }
        }
        var visible: [String: Bool] = [:]
        // Up the parents to the first view whose visibility is known (or the root), then down the
        // path: a loop, not recursion, so a chain as deep as `maxViews` cannot overflow the stack
        // (recursion capped at 10,000 called every view below that depth invisible). A cycle (the
        // parser refuses them) or an unknown parent ends the walk as invisible.
        func resolve(_ start: String) {
            var path: [View] = []
            var onPath = Set<String>()
            var id: String? = start
            var above = true
            while let current = id {
                if let known = visible[current] { above = known; break }
                guard let v = byID[current], onPath.insert(current).inserted else { above = false; break }
                path.append(v)
                id = v.parent
            }
            for v in path.reversed() {
                above = above && (v.kind != .view || (!v.hidden && v.alpha > 0))
                visible[v.id] = above
            }
        }
        if needsVisibility {
            for v in document.views where visible[v.id] == nil { resolve(v.id) }
        }
        self.visible = visible
        self.isGuide = guides
        self.rootInputs = roots
    }

    func isVisible(_ id: String) -> Bool { visible[id] ?? false }

    /// False when no rule of the document looked at visibility (then `visible` was not computed).
    let hasVisibility: Bool

    static func needsVisibility(_ a: Activation) -> Bool {
        switch a {
        case .always, .manual, .delegate: return false
        case .bothVisible, .firstInvisible, .when: return true
        }
    }

    /// Whether the entry's rule switches this item on (before `active: false`).
    func ruleHolds(_ entry: ConstraintEntry, _ item: LinearConstraint) -> Bool {
        switch entry.activation {
        case .always, .manual:
            return true
        case .bothVisible:
            return item.views.allSatisfy { isGuide.contains($0) || isVisible($0) }
        case .firstInvisible:
            guard let first = item.firstView, !isGuide.contains(first) else { return false }
            return !isVisible(first)
        case .delegate:
            return delegate[entry.id] ?? delegateMemory[entry.id] ?? false
        case .when(let predicate):
            return evaluate(predicate)
        }
    }

    func isActive(_ entry: ConstraintEntry, _ item: LinearConstraint) -> Bool {
        entry.active != false && ruleHolds(entry, item)
    }

    func evaluate(_ p: Predicate) -> Bool {
        switch p {
        case .visible(let id): return isVisible(id)
        case .hidden(let id): return !isVisible(id)
        case .flag(let name): return flags[name] ?? false
        case .constant(let b): return b
        case .not(let q): return !evaluate(q)
        case .and(let a, let b): return evaluate(a) && evaluate(b)
        case .or(let a, let b): return evaluate(a) || evaluate(b)
        case .compare(let view, let dimension, let op, let value):
            let frame = rootInputs[view]
            guard let input = dimension == .width ? frame?.width : frame?.height else { return false }
            switch op {
            case .less: return input < value
            case .lessOrEqual: return input <= value
            case .greater: return input > value
            case .greaterOrEqual: return input >= value
            case .equal: return input == value
            case .notEqual: return input != value
            }
        }
    }
}
