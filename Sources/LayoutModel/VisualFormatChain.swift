/// The resolved chain both visual formats lower to: edges, views, gaps and sizes with numbers and
/// priorities already known. `emit` turns it into `LinearConstraint`s in NSLayoutConstraint's shape.
struct VisualChain {
    /// One gap constraint: `gap REL constant` at `priority`.
    struct Gap {
        var relation: Relation
        var constant: Double
        var priority: Double
    }

    /// One size constraint of a view: `dim REL constant`, or `dim REL multiplier·other.dim`.
    struct Size {
        enum Target {
            case constant(Double)
            case dimension(of: String, multiplier: Double)
        }
        var relation: Relation
        var target: Target
        var priority: Double
    }

    struct Item {
        var view: String
        var sizes: [Size]
    }

    /// How the horizontal chain maps onto attributes (Apple's direction options).
    enum Direction {
        case leadingToTrailing, leftToRight, rightToLeft
    }

    var vertical: Bool
    /// Gaps from the opening `|`; nil when the chain does not start at the superview.
    var opening: [Gap]?
    var items: [Item]
    /// `gaps[i]` sits between `items[i]` and `items[i + 1]`.
    var gaps: [[Gap]]
    /// Gaps to the closing `|`; nil when the chain does not end at the superview.
    var closing: [Gap]?

    /// The constraints, in the order their parts are written: opening gaps, then per view the gaps
    /// into it, its size predicates and its alignment with the previous view, then closing gaps.
    /// - Parameters:
    ///   - openingSuperview / closingSuperview: the views `|` stands for (required when the edge exists).
    ///   - alignments: attributes from `alignAll…` options, each `next.attr == prev.attr`.
    func emit(direction: Direction, openingSuperview: String?, closingSuperview: String?,
              alignments: [Attribute], alignmentPriority: Double) -> [LinearConstraint] {
        let near: Attribute, far: Attribute
        var reversed = false
        if vertical {
            (near, far) = (.top, .bottom)
        } else {
            switch direction {
            case .leadingToTrailing: (near, far) = (.leading, .trailing)
            case .leftToRight: (near, far) = (.left, .right)
            case .rightToLeft: (near, far) = (.right, .left); reversed = true
            }
        }
        let dimension: Attribute = vertical ? .height : .width
        var out: [LinearConstraint] = []

        // A gap between an earlier edge and a later edge of the chain. The item with the larger
        // coordinate comes first, so the constant is the gap as written and the relation keeps
        // its meaning: `later REL earlier + g`, or mirrored for right-to-left.
        func gap(_ g: Gap, earlier: Anchor, later: Anchor) {
            let (first, second) = reversed ? (earlier, later) : (later, earlier)
            out.append(Self.make([LinearTerm(first, 1), LinearTerm(second, -1)], -g.constant, g.relation, g.priority))
        }

        if let opening, let sv = openingSuperview, let head = items.first {
            for g in opening { gap(g, earlier: Anchor(sv, near), later: Anchor(head.view, near)) }
        }
        for (i, item) in items.enumerated() {
            if i > 0 {
                let prev = items[i - 1]
                for g in gaps[i - 1] { gap(g, earlier: Anchor(prev.view, far), later: Anchor(item.view, near)) }
            }
            for s in item.sizes {
                let mine = LinearTerm(Anchor(item.view, dimension), 1)
                switch s.target {
                case .constant(let c):
                    out.append(Self.make([mine], -c, s.relation, s.priority))
                case .dimension(_, let m) where m == 0:  // `v[0%]`
                    out.append(Self.make([mine], 0, s.relation, s.priority))
                case .dimension(let other, let m):
                    out.append(Self.make([mine, LinearTerm(Anchor(other, dimension), -m)], 0, s.relation, s.priority))
                }
            }
            if i > 0 {
                let prev = items[i - 1]
                for a in alignments {
                    out.append(Self.make([LinearTerm(Anchor(item.view, a), 1), LinearTerm(Anchor(prev.view, a), -1)],
                                         0, .equal, alignmentPriority))
                }
            }
        }
        if let closing, let sv = closingSuperview, let tail = items.last {
            for g in closing { gap(g, earlier: Anchor(tail.view, far), later: Anchor(sv, far)) }
        }
        return out
    }

    /// A constraint whose `views` are its terms' views in order (deduplicated) and whose first item
    /// is its first term.
    static func make(_ terms: [LinearTerm], _ constant: Double, _ relation: Relation,
                     _ priority: Double) -> LinearConstraint {
        var views: [String] = []
        for t in terms where !views.contains(t.anchor.view) { views.append(t.anchor.view) }
        return LinearConstraint(terms: terms, constant: constant == 0 ? 0 : constant, relation: relation,
                                priority: priority, views: views, firstView: terms.first?.anchor.view)
    }
}
