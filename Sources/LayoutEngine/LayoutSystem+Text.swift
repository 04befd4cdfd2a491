import Cassowary
import LayoutModel

// Text that wraps (docs/document.md, "Text that wraps"), solved as Auto Layout solves multi-line
// labels: a text view's intrinsic height is a pair of constraints (hugging <=, compression
// resistance >=) whose constant is the height measured at the view's solved width. After a
// solve, each text view whose width moved is measured again; a height that changed is a
// constant change in place (`Solver.setConstant`, the path a PATCH of a constant takes), and the
// system is solved again, until no height changes, in at most `maxTextRounds` rounds.

/// What a text view was last measured at, and what that gave.
struct TextMeasure: Sendable {
    var text: TextSpec
    var width: Double
    var height: Double
}

extension LayoutSystem {
    /// Re-solves after the first one. Widths usually settle in one round (a label's width rarely
    /// depends on its own height); a layout whose widths do depend on heights (an aspect ratio, a
    /// width tied to a wrapped sibling's height) may take a few, and one that oscillates
    /// (two lines make it narrower, which makes three lines, which make it wider) never settles:
    /// the bound stops it, and `diagnostics.unsettled` names its views.
    public static let maxTextRounds = 8

    /// The constraints a view's text generates (after its frame and intrinsic size): its
    /// intrinsic width (the text on one line; `intrinsicSize.width` replaces it when given) and
    /// its intrinsic height at the width it was last measured at (the text on one line before the
    /// first solve), at the view's hugging and compression resistance priorities.
    mutating func compileText(_ view: View, _ text: TextSpec, _ v: ViewVariables, into out: inout [CompiledConstraint]) {
        func add(_ field: CompiledConstraint.TextField, _ x: Variable, _ value: Double,
                 _ relation: Cassowary.Relation, _ priority: Double) {
            out.append(CompiledConstraint(key: .text(view.id, field), terms: [Term(x)], constant: -value,
                                          relation: relation, priority: priority, active: true))
        }
        if view.intrinsicWidth == nil {
            let w = text.intrinsicWidth
            add(.widthMax, v.width, w, .lessOrEqual, view.hugging.horizontal)
            add(.widthMin, v.width, w, .greaterOrEqual, view.compressionResistance.horizontal)
        }
        let h = textHeight(of: view.id, text)
        add(.heightMax, v.height, h, .lessOrEqual, view.hugging.vertical)
        add(.heightMin, v.height, h, .greaterOrEqual, view.compressionResistance.vertical)
    }

    /// The height a text view's constraints hold: the last measurement, while the text is the
    /// one measured; the one-line height before any (the first solve, or a text just edited).
    mutating func textHeight(of id: String, _ text: TextSpec) -> Double {
        if let m = textMeasures[id] {
            if m.text == text { return m.height }
            // Another text: measured again from one line, as a fresh solve of it would be.
            textMeasures[id] = nil
        }
        return text.initialHeight
    }

    /// Measures each text view whose solved width moved since its last measurement, sets the
    /// heights that changed in place and solves again, until nothing changes or
    /// `maxTextRounds` re-solves were made (then the views still changing are `unsettled`).
    /// Run at the end of every solve (`init`) and of every edit (`apply(_: LayoutEdit)`).
    /// - Returns: what the re-solves cost (constant changes, pivots, a rebuild).
    @discardableResult
    mutating func settleText() -> EditStats {
        unsettled = []
        guard !textViews.isEmpty else { return EditStats() }
        var stats = EditStats()
        var pivotsBefore = solver.statistics.pivots
        for round in 0...Self.maxTextRounds {
            solver.updateValues()
            var changed: [(position: Int, height: Double)] = []
            for p in textViews {
                guard p < document.views.count, let text = document.views[p].text,
                      p < viewVariables.count, let v = viewVariables[p],
                      let slot = position(of: .text(document.views[p].id, .heightMax)) else { continue }
                let id = document.views[p].id
                let width = solver.value(v.width)
                let held = -compiled[slot].constant
                // Only views whose width moved (a PATCH that resizes one column re-measures that
                // column's labels) or whose held height is not their measurement (unsettled before).
                if let m = textMeasures[id], m.width == width, m.height == held, m.text == text { continue }
                let height = text.height(atWidth: width)
                textMeasures[id] = TextMeasure(text: text, width: width, height: height)
                if height != held { changed.append((p, height)) }
            }
            if changed.isEmpty { break }
            if round == Self.maxTextRounds {
                // The heights measured last stay measured but not applied: the frames answered are
                // the ones of the last solve, and the next edit tries these views again.
                unsettled = changed.map { document.views[$0.position].id }
                break
            }
            var failed = false
            for (p, height) in changed {
                let id = document.views[p].id
                for field in [CompiledConstraint.TextField.heightMax, .heightMin] {
                    guard let slot = position(of: .text(id, field)) else { continue }
                    if !setSlotConstant(slot, to: -height, stats: &stats) { failed = true }
                }
            }
            if failed || solver.brokenCount > 0 {
                // A required conflict (compression resistance 1000): rebuilt from the document with
                // the new heights, so that broken constraints follow processing order as in a
                // fresh solve of the same heights.
                stats.pivots += solver.statistics.pivots - pivotsBefore
                build(rememberingDelegates: delegateMemory)
                stats.rebuilt = true
                pivotsBefore = solver.statistics.pivots
            }
        }
        stats.pivots += solver.statistics.pivots - pivotsBefore
        solver.updateValues()
        return stats
    }

    /// A readable form of a constraint a view's text generates, for whoever names constraints to
    /// a person (explain, diagnostics): `label.height <= 36 (text, 2 lines)`; nil when `id` is
    /// not such a constraint (`label/text-height-hugging`, see `CompiledConstraint.TextField`).
    public func textConstraintDescription(_ id: String) -> String? {
        guard let slash = id.lastIndex(of: "/"),
              let field = CompiledConstraint.TextField(rawValue: String(id[id.index(after: slash)...])) else { return nil }
        return textConstraintDescription(view: String(id[..<slash]), field: field)
    }

    /// `textConstraintDescription` of the constraint `field` of `viewID`'s text makes.
    func textConstraintDescription(view viewID: String, field: CompiledConstraint.TextField) -> String? {
        guard let p = viewIndex[viewID], let text = document.views[p].text,
              let slot = position(of: .text(viewID, field)) else { return nil }
        let value = ConstraintRenderer.number(-compiled[slot].constant)
        let relation = field == .widthMax || field == .heightMax ? "<=" : ">="
        switch field {
        case .widthMax, .widthMin:
            let why: String
            if case .words = text { why = "text on one line" } else { why = "heightForWidth, widest measured" }
            return "\(viewID).width \(relation) \(value) (\(why))"
        case .heightMax, .heightMin:
            let width = textMeasures[viewID]?.width ?? text.intrinsicWidth
            let kind: String
            if case .words = text { kind = "text" } else { kind = "heightForWidth" }
            return "\(viewID).height \(relation) \(value) (\(kind), \(text.reason(atWidth: width)))"
        }
    }
}
