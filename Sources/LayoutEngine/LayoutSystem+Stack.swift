import Cassowary
import LayoutModel

// Hiding or showing an arranged view (a PATCH of `hidden`): only its stack's constraints can
// change, and a stack makes the same number of them whatever is hidden (`StackCompiler`), so the
// stack view's part of `compiled` is compiled again and compared slot by slot: a slot switched
// off is removed, one switched on is added, one whose constant changed is changed in place, and
// every other constraint of the system stays in the solver as it is.

extension LayoutSystem {
    /// Positions of the stack views that arrange any of `ids` (an arranged view's parent is its
    /// stack: the parser sees to it).
    func stacks(arranging ids: [String]) -> [Int] {
        var out: [Int] = []
        for id in ids {
            guard let i = viewIndex[id], let parent = document.views[i].parent, let p = viewIndex[parent],
                  document.views[p].stack?.arranged.contains(id) == true, !out.contains(p) else { continue }
            out.append(p)
        }
        return out
    }

    /// Compiles the view at `p` (its frame, intrinsic size and stack) again and applies the
    /// difference to the solver in place.
    /// - Returns: nil, having changed nothing, when the number or the names of the view's
    ///   constraints changed (the caller rebuilds).
    mutating func recompileView(at p: Int) -> EditStats? {
        var next: [CompiledConstraint] = []
        compileView(document.views[p], into: &next)
        if document.views[p].stack != nil {
            compileStack(of: p, views: document.views, index: viewIndex, direction: document.direction, into: &next)
        }
        let first = Int(viewStart[p])
        guard next.count == Int(viewStart[p + 1]) - first,
              next.indices.allSatisfy({ next[$0].key == compiled[first + $0].key }) else { return nil }
        var stats = EditStats()
        let pivotsBefore = solver.statistics.pivots
        let failed = !replaceSlots(at: first, with: next, stats: &stats)
        return finishEdit(stats, failed: failed, pivotsBefore: pivotsBefore)
    }

    /// After `setVisibility` changed `views`: their stacks' constraints follow. A stack whose
    /// constraints cannot be compared slot by slot rebuilds the system from its document.
    mutating func restack(after views: [View]) -> EditStats {
        var stats = EditStats()
        for p in stacks(arranging: views.map(\.id)) {
            if let s = recompileView(at: p) {
                stats.add(s)
                if s.rebuilt { break }  // rebuilt from the edited document: everything is in place
            } else {
                build(rememberingDelegates: delegateMemory)
                stats.rebuilt = true
                break
            }
        }
        return stats
    }
}
