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
        // Removals first, then constants in place and additions (as `apply` orders them).
        var keep = [Bool](repeating: false, count: next.count)
        for k in next.indices {
            guard let cid = solverIDs[first + k] else { continue }
            if next[k].active, compiled[first + k].hasSameShape(as: next[k]) {
                keep[k] = true
                continue
            }
            try? solver.remove(cid)
            positionOfConstraint[cid.index] = nil
            solverIDs[first + k] = nil
            stats.removed += 1
        }
        var failed = false
        for k in next.indices {
            let c = next[k], pos = first + k
            if keep[k], let cid = solverIDs[pos] {
                if compiled[pos].constant != c.constant {
                    do { try solver.setConstant(cid, to: c.constant) } catch { failed = true }
                    stats.constantsChanged += 1
                }
            } else if c.active {
                solverIDs[pos] = install(c, at: pos)
                stats.added += 1
            }
            compiled[pos] = c
        }
        if failed || solver.brokenCount > 0 {
            build(rememberingDelegates: delegateMemory)
            return EditStats(rebuilt: true, added: compiled.filter(\.active).count, pivots: solver.statistics.pivots)
        }
        stats.pivots = solver.statistics.pivots - pivotsBefore
        if stats.added + stats.removed > 0 { ambiguityStale = true }
        solver.updateValues()
        if rebuildIfDue(afterRemovals: stats.removed > 0) { stats.rebuilt = true }
        return stats
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
