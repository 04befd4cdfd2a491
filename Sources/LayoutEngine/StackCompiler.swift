import LayoutModel

/// The constraints a stack view makes (docs/document.md, "Stack views"): UIKit's `UISV-*`
/// constraints, written over anchors, each with a readable name (`spacing-2`), in a fixed number
/// of slots for a given stack and arranged views' intrinsic sizes: hiding or showing an arranged
/// view switches slots on and off and changes constants or terms in place, never the count, so a
/// PATCH can diff the stack's constraints position by position.
struct StackCompiler {
    /// One generated constraint: `Σ coefficient·anchor + constant  REL  0`, where an anchor is
    /// (position in `views`, attribute).
    struct Item {
        var name: String
        var terms: [(view: Int, attribute: Attribute, coefficient: Double)]
        var constant: Double
        var relation: Relation
        var priority: Double
        var active: Bool
    }

    /// UIKit's levels (TZStackView, tested against UIStackView, uses the same): the cross-axis
    /// spanner hugs its views at 51, an `equal*` stack hugs them along the axis at 49, a view
    /// without an intrinsic cross size shrinks to nothing at 25, equal centering holds at 149 and
    /// down, proportions at 999 and down.
    static let spanningFit = 51.0, canvasFit = 49.0, ambiguitySuppression = 25.0
    static let equalCentering = 150.0, fillProportionally = 1000.0
    /// Where the count-down levels stop in a long stack: a level must stay a valid priority, and
    /// above the fits (51, 49) that only settle what nothing else decides.
    static let lowestCentering = 100.0, lowestProportion = 251.0
    /// Below ambiguity suppression: only decides where a baseline-aligned group sits in a taller
    /// stack (at the top), never sizes a view.
    static let baselinePin = 24.0

    let stack: Int
    let spec: StackSpec
    let views: [View]
    /// Positions in `views` of the arranged views.
    let arranged: [Int]
    let visible: [Bool]

    /// nil when an arranged id names no view (the parser refuses such documents).
    init?(stack: Int, views: [View], index: [String: Int]) {
        guard let spec = views[stack].stack else { return nil }
        var arranged: [Int] = []
        for id in spec.arranged {
            guard let i = index[id] else { return nil }
            arranged.append(i)
        }
        self.stack = stack; self.spec = spec; self.views = views; self.arranged = arranged
        // UIKit watches an arranged view's own `isHidden` (alpha 0 keeps its place).
        self.visible = arranged.map { !views[$0].hidden }
    }

    private var horizontal: Bool { spec.axis == .horizontal }
    private var margins: Bool { spec.layoutMarginsRelative }
    // Main axis and cross axis anchors.
    private var mainStart: Attribute { horizontal ? .leading : .top }
    private var mainEnd: Attribute { horizontal ? .trailing : .bottom }
    private var mainCenter: Attribute { horizontal ? .centerX : .centerY }
    private var mainSize: Attribute { horizontal ? .width : .height }
    private var crossStart: Attribute { horizontal ? .top : .leading }
    private var crossEnd: Attribute { horizontal ? .bottom : .trailing }
    private var crossCenter: Attribute { horizontal ? .centerY : .centerX }
    private var crossSize: Attribute { horizontal ? .height : .width }
    // The canvas: the stack's edges, or its margins (`layoutMarginsRelative`).
    private var canvasMainStart: Attribute { horizontal ? (margins ? .leadingMargin : .leading) : (margins ? .topMargin : .top) }
    private var canvasMainEnd: Attribute { horizontal ? (margins ? .trailingMargin : .trailing) : (margins ? .bottomMargin : .bottom) }
    private var canvasCrossStart: Attribute { horizontal ? (margins ? .topMargin : .top) : (margins ? .leadingMargin : .leading) }
    private var canvasCrossEnd: Attribute { horizontal ? (margins ? .bottomMargin : .bottom) : (margins ? .trailingMargin : .trailing) }
    private var canvasCrossCenter: Attribute {
        horizontal ? (margins ? .centerYWithinMargins : .centerY) : (margins ? .centerXWithinMargins : .centerX)
    }

    /// The stack's constraints, in processing order.
    func items() -> [Item] {
        let n = arranged.count
        guard n > 0 else { return [] }
        var out: [Item] = []
        let s = stack
        func add(_ name: String, _ terms: [(Int, Attribute, Double)], _ constant: Double = 0,
                 _ relation: Relation = .equal, priority: Double = Priority.required, active: Bool = true) {
            out.append(Item(name: name, terms: terms.map { ($0.0, $0.1, $0.2) }, constant: constant,
                            relation: relation, priority: priority, active: active))
        }
        let a = arranged
        let shown = a.indices.filter { visible[$0] }
        let first = shown.first
        // UISV-canvas-connection along the axis: the first and last arranged views touch the
        // canvas. Hidden views at either end have no size and no spacing, so they sit on the
        // edge, and the connection needs not move when one is hidden.
        add("canvas-start", [(a[0], mainStart, 1), (s, canvasMainStart, -1)])
        add("canvas-end", [(s, canvasMainEnd, 1), (a[n - 1], mainEnd, -1)])
        // UISV-spacing between neighbours: exact for fill*, a minimum for equal*. A hidden view
        // leaves with its spacing: inside a run of hidden views the gaps are 0 and the two gaps
        // around the run are half the spacing each; a run at either end has no gaps at all.
        for k in 1..<n {
            let p = k - 1
            // A visible view on each side of the gap (O(1): a stack may arrange thousands).
            let interior = (first.map { $0 < k } ?? false) && (shown.last.map { $0 >= k } ?? false)
            let sides = (visible[p] ? 1 : 0) + (visible[k] ? 1 : 0)
            let constant = interior ? spec.spacing * Double(sides) / 2 : 0
            // A hidden view is tied to what precedes it; only a gap that ends at a visible view
            // (not the first) may grow in an equal* stack.
            let minimum = spec.distribution.spacingIsMinimum && visible[k] && k != first
            let pEnd: Attribute = baselines && interior && visible[p] ? .lastBaseline : mainEnd
            let kStart: Attribute = baselines && interior && visible[k] ? .firstBaseline : mainStart
            add("spacing-\(k)", [(a[k], kStart, 1), (a[p], pEnd, -1)], -constant,
                minimum ? .greaterOrEqual : .equal)
        }
        // UISV-hiding: a hidden arranged view has no size along the axis.
        for k in 0..<n { add("hiding-\(k)", [(a[k], mainSize, 1)], active: !visible[k]) }
        distribution(&out, shown: shown)
        alignment(&out)
        // UISV-ambiguity-suppression: with a non-fill alignment nothing sizes a view across the
        // axis; it is pulled to nothing at the lowest level (UIKit adds it for every arranged view:
        // one with an intrinsic size keeps it, hugging and compression resistance are higher).
        if spec.alignment != .fill {
            for k in 0..<n {
                add("ambiguity-suppression-\(k)", [(a[k], crossSize, 1)], priority: Self.ambiguitySuppression)
            }
        }
        return out
    }

    private var baselines: Bool { spec.baselineRelative && !horizontal }

    private func mainIntrinsic(of v: Int) -> Double? { horizontal ? views[v].intrinsicWidth : views[v].intrinsicHeight }

    /// The distribution's equalities and proportions, over the visible views.
    private func distribution(_ out: inout [Item], shown: [Int]) {
        let a = arranged, n = a.count, s = stack
        // The slot of arranged index k holds the rule for the visible view k, so the count does
        // not depend on which views are hidden.
        var rank = [Int](repeating: -1, count: n)
        for (j, k) in shown.enumerated() { rank[k] = j }
        func item(_ name: String, _ terms: [(Int, Attribute, Double)], _ constant: Double = 0,
                  _ relation: Relation = .equal, priority: Double = Priority.required, active: Bool) {
            out.append(Item(name: name, terms: terms.map { ($0.0, $0.1, $0.2) }, constant: constant,
                            relation: relation, priority: priority, active: active))
        }
        // The gap between two visible neighbours, measured as the spacing is.
        func gap(_ p: Int, _ q: Int) -> [(Int, Attribute, Double)] {
            [(a[q], baselines ? .firstBaseline : mainStart, 1), (a[p], baselines ? .lastBaseline : mainEnd, -1)]
        }
        func centers(_ p: Int, _ q: Int) -> [(Int, Attribute, Double)] {
            [(a[q], mainCenter, 1), (a[p], mainCenter, -1)]
        }
        func negated(_ t: [(Int, Attribute, Double)]) -> [(Int, Attribute, Double)] { t.map { ($0.0, $0.1, -$0.2) } }
        switch spec.distribution {
        case .fill:
            break
        case .fillEqually:
            // UISV-fill-equally: every visible view as long as the first visible one.
            for k in 1..<max(n, 1) {
                let on = rank[k] > 0
                item("fill-equally-\(k)", [(a[k], mainSize, 1), (a[on ? shown[0] : 0], mainSize, -1)], active: on)
            }
        case .fillProportionally:
            // UISV-fill-proportionally: view k's length is its share of the canvas, its intrinsic
            // length over the visible views' total plus the spacings (UIKit's multiplier), one
            // level per view from 999 down. The shares add up to the canvas only when the stack is
            // its content's length; otherwise the last views give way. No intrinsic length counts 0.
            let content = shown.reduce(0.0) { $0 + (mainIntrinsic(of: a[$1]) ?? 0) }
            let total = content + Double(max(shown.count - 1, 0)) * spec.spacing
            for k in 0..<n {
                // Without any intrinsic length there is nothing to share: the stack fills.
                let on = rank[k] >= 0 && content > 0 && total > 0
                let f = on ? (mainIntrinsic(of: a[k]) ?? 0) / total : 0
                item("fill-proportionally-\(k)", [(a[k], mainSize, 1), (s, canvasMainEnd, -f), (s, canvasMainStart, f)],
                     priority: max(Self.fillProportionally - Double(k + 1), Self.lowestProportion), active: on)
            }
        case .equalSpacing, .equalCentering:
            // UISV-distributing: the gaps (or the distances between centres) of visible
            // neighbours are equal: required for equal spacing, from 149 down for centering.
            let centering = spec.distribution == .equalCentering
            for k in 1..<max(n, 1) {
                let j = rank[k]
                let on = j >= 2
                let terms = on ? (centering ? centers(shown[j - 1], k) + negated(centers(shown[0], shown[1]))
                                            : gap(shown[j - 1], k) + negated(gap(shown[0], shown[1])))
                               : [(a[k], mainStart, 1.0), (a[0], mainStart, -1.0)]
                item(centering ? "equal-centering-\(k)" : "equal-spacing-\(k)", terms,
                     priority: centering ? max(Self.equalCentering - Double(max(j - 1, 1)), Self.lowestCentering)
                                         : Priority.required, active: on)
            }
            // The stack hugs its views along the axis (the gaps may only grow when it is made longer).
            item("canvas-fit", [(s, canvasMainEnd, 1), (s, canvasMainStart, -1)], priority: Self.canvasFit, active: true)
        }
    }

    /// UISV-alignment and the cross-axis canvas connections (UISV-canvas-connection, the
    /// spanner's UISV-spanning-boundary and UISV-spanning-fit), over every arranged view (hidden
    /// ones keep their cross-axis place); the spanning boundaries over the visible ones.
    private func alignment(_ out: inout [Item]) {
        let a = arranged, n = a.count, s = stack
        func add(_ name: String, _ terms: [(Int, Attribute, Double)], _ relation: Relation = .equal,
                 priority: Double = Priority.required, active: Bool = true) {
            out.append(Item(name: name, terms: terms.map { ($0.0, $0.1, $0.2) }, constant: 0,
                            relation: relation, priority: priority, active: active))
        }
        func align(_ name: String, _ attribute: Attribute) {
            for k in 1..<max(n, 1) { add("\(name)-\(k)", [(a[k], attribute, 1), (a[0], attribute, -1)]) }
        }
        func spanning(start: Bool, end: Bool) {
            // The stack's cross extent covers every visible view, and hugs them at 51.
            if start {
                for k in 0..<n { add("spanning-start-\(k)", [(a[k], crossStart, 1), (s, canvasCrossStart, -1)],
                                     .greaterOrEqual, active: visible[k]) }
            }
            if end {
                for k in 0..<n { add("spanning-end-\(k)", [(s, canvasCrossEnd, 1), (a[k], crossEnd, -1)],
                                     .greaterOrEqual, active: visible[k]) }
            }
            add("spanning-fit", [(s, canvasCrossEnd, 1), (s, canvasCrossStart, -1)], priority: Self.spanningFit)
        }
        switch spec.alignment.resolved {
        case .fill:
            add("canvas-cross-start", [(a[0], crossStart, 1), (s, canvasCrossStart, -1)])
            add("canvas-cross-end", [(s, canvasCrossEnd, 1), (a[0], crossEnd, -1)])
            align("alignment", crossStart)
            align("alignment-end", crossEnd)
        case .leading:
            add("canvas-cross-start", [(a[0], crossStart, 1), (s, canvasCrossStart, -1)])
            align("alignment", crossStart)
            spanning(start: false, end: true)
        case .trailing:
            add("canvas-cross-end", [(s, canvasCrossEnd, 1), (a[0], crossEnd, -1)])
            align("alignment", crossEnd)
            spanning(start: true, end: false)
        case .center:
            add("canvas-cross-center", [(a[0], crossCenter, 1), (s, canvasCrossCenter, -1)])
            align("alignment", crossCenter)
            spanning(start: true, end: true)
        case .firstBaseline, .lastBaseline:
            align("alignment", spec.alignment == .firstBaseline ? .firstBaseline : .lastBaseline)
            spanning(start: true, end: true)
            // Where the group sits when the stack is taller than it: at the top.
            for k in 0..<n {
                add("baseline-pin-\(k)", [(a[k], crossStart, 1), (s, canvasCrossStart, -1)],
                    priority: Self.baselinePin, active: visible[k])
            }
        case .top, .bottom:
            break  // resolved above
        }
    }
}
