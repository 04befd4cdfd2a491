import Cassowary
import LayoutModel

// Fast edit paths that touch only the delta, without recompiling the document: private details of
// `apply(_: LayoutEdit)`. Each returns nil when it does not apply (then `apply` takes a slower path).

extension LayoutSystem {
    /// A root's given width and/or height changed: edit suggestions (constant changes of the root
    /// size constraints through the dual simplex).
    /// - Returns: nil when the view is not a root with those sizes given, or `when` rules exist.
    mutating func resizeRoot(_ id: String, width: Double?, height: Double?) -> EditStats? {
        guard let vi = viewIndex[id], document.views[vi].isRoot, !hasWhenRules else { return nil }
        if width != nil && document.views[vi].frame.width == nil { return nil }
        if height != nil && document.views[vi].frame.height == nil { return nil }
        if solver.brokenCount > 0 { return nil }
        var stats = EditStats()
        let pivotsBefore = solver.statistics.pivots
        var failed = false
        for (field, value) in [(CompiledConstraint.ViewField.width, width), (.height, height)] {
            guard let value, let pos = position(of: .view(id, field)), let cid = solverIDs[pos] else { continue }
            if compiled[pos].constant == -value { continue }
            do {
                try solver.setConstant(cid, to: -value, repeated: true)
                compiled[pos].constant = -value
                stats.editsSuggested += 1
            } catch {
                failed = true
            }
        }
        // In place: a copy of the view (its strings and arrays) per resize cost more than the
        // sizes it changes.
        if let width { document.views[vi].frame.width = width }
        if let height { document.views[vi].frame.height = height }
        activation.rootInputs[id] = document.views[vi].frame
        return finishEdit(stats, failed: failed, pivotsBefore: pivotsBefore)
    }

    /// Entry `index`'s one item gets `constant`, its only change: what `replace(views: [],
    /// entries: [the entry with that constant])` does when that is a constant change in place,
    /// without making, comparing or copying the entry (a PATCH of one constant, the usual one).
    /// - Returns: nil, having changed nothing, when it is not such a change (the entry has other
    ///   than one item, a `when` rule, an anchor that adds a constant of its own, an activation
    ///   that changed since it was compiled, or broken constraints exist): the caller then
    ///   replaces the entry.
    mutating func setConstant(ofEntry index: Int, to constant: Double) -> EditStats? {
        guard index < document.constraints.count, index < entryStart.count, solver.brokenCount == 0,
              document.constraints[index].items.count == 1, !document.constraints[index].usesWhen else { return nil }
        if document.constraints[index].items[0].constant == constant { return EditStats() }
        let first = Int(entryStart[index])
        guard first < compiled.count,
              document.constraints[index].items[0].terms.allSatisfy({ AnchorTranslation.addsNoConstant($0.anchor.attribute) }),
              compiled[first].active == activation.isActive(document.constraints[index],
                                                             document.constraints[index].items[0]) else { return nil }
        document.constraints[index].items[0].constant = constant
        var stats = EditStats()
        let pivotsBefore = solver.statistics.pivots
        let failed = !setSlotConstant(first, to: constant, stats: &stats)
        return finishEdit(stats, failed: failed, pivotsBefore: pivotsBefore)
    }

    /// One existing constraint entry changed (same id): only its items are compared, constants
    /// change in place, other items are removed and added.
    /// - Returns: nil when the entry is new, has a different number of items (every later
    ///   position in `compiled` would move), or broken constraints exist (the caller applies the
    ///   whole document so that broken ones follow processing order).
    mutating func replaceEntry(_ entry: ConstraintEntry) -> EditStats? {
        guard let index = entryIndex[entry.id], solver.brokenCount == 0,
              document.constraints[index].items.count == entry.items.count else { return nil }
        if let stats = changeConstants(at: index, to: entry) { return stats }
        let old = document.constraints[index]
        document.constraints[index] = entry
        if case .when = entry.activation { hasWhenRules = true }
        if ActivationContext.needsVisibility(entry.activation) && !activation.hasVisibility {
            activation = ActivationContext(document: document, delegateMemory: delegateMemory)
        }
        if case .when = old.activation {
            hasWhenRules = document.constraints.contains { if case .when = $0.activation { return true } else { return false } }
        }
        var next: [CompiledConstraint] = []
        Self.compileEntry(entry, direction: document.direction, views: document.views, index: viewIndex,
                          variables: viewVariables, activation: activation, into: &next)
        var stats = EditStats()
        let pivotsBefore = solver.statistics.pivots
        // The entry's items sit at entryStart[index] ..< +count (the same count before and after).
        let failed = !replaceSlots(at: Int(entryStart[index]), with: next, stats: &stats)
        if entry.activation == .delegate || old.activation == .delegate {
            delegateMemory = nextDelegateMemory(activation)
        }
        // Only this entry can have been switched on or off (a rebuild below recounts anyway).
        let nowInactive = entry.active == false || (!next.isEmpty && !next.contains(where: \.active))
        if nowInactive != inactive.contains(entry.id) { inactive = inactiveEntries }
        return finishEdit(stats, failed: failed, pivotsBefore: pivotsBefore)
    }

    /// Puts `next` into the slots `first ..< first + next.count` of `compiled` (as many as it
    /// replaces): a slot that keeps its shape keeps its solver constraint (its constant changed in
    /// place), the others are removed first and then added, as `apply` orders them.
    /// - Returns: false when a constant could not be set in place (the caller rebuilds).
    mutating func replaceSlots(at first: Int, with next: [CompiledConstraint], stats: inout EditStats) -> Bool {
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
        var ok = true
        for k in next.indices {
            let c = next[k], pos = first + k
            if keep[k], let cid = solverIDs[pos] {
                if compiled[pos].constant != c.constant {
                    do { try solver.setConstant(cid, to: c.constant) } catch { ok = false }
                    stats.constantsChanged += 1
                }
            } else if c.active {
                solverIDs[pos] = install(c, at: pos)
                stats.added += 1
            }
            compiled[pos] = c
        }
        return ok
    }
}

extension LayoutSystem {
    /// `replaceEntry` when only the items' constants change (the usual PATCH): nothing is
    /// compiled again. Each item's anchors add no constant of their own (no margins, no
    /// baselines), so each compiled constant is the item's constant, exactly what compiling would
    /// give, and each item is as active as it was. nil when that does not hold.
    mutating func changeConstants(at index: Int, to entry: ConstraintEntry) -> EditStats? {
        let old = document.constraints[index]
        guard old.activation == entry.activation, old.active == entry.active,
              old.items.count == entry.items.count else { return nil }
        let first = Int(entryStart[index])
        for (k, (a, b)) in zip(old.items, entry.items).enumerated() {
            guard a.relation == b.relation, a.priority == b.priority, a.terms == b.terms, a.views == b.views,
                  a.firstView == b.firstView,
                  b.terms.allSatisfy({ AnchorTranslation.addsNoConstant($0.anchor.attribute) }),
                  // The activation context may have changed since (a view hidden: `setVisibility`
                  // replaces such entries by themselves to switch them): then compile.
                  compiled[first + k].active == activation.isActive(entry, b) else { return nil }
        }
        document.constraints[index] = entry
        var stats = EditStats()
        let pivotsBefore = solver.statistics.pivots
        var failed = false
        for (k, item) in entry.items.enumerated() where !setSlotConstant(first + k, to: item.constant, stats: &stats) {
            failed = true
        }
        return finishEdit(stats, failed: failed, pivotsBefore: pivotsBefore)
    }
}

extension LayoutSystem {
    /// Slot `pos` of `compiled` gets `constant`, in the solver too when it is installed there (a
    /// constant change in place, counted in `stats`); nothing when it already has it.
    /// - Returns: false when the solver could not take it (the caller rebuilds).
    mutating func setSlotConstant(_ pos: Int, to constant: Double, stats: inout EditStats) -> Bool {
        guard compiled[pos].constant != constant else { return true }
        compiled[pos].constant = constant
        guard let cid = solverIDs[pos] else { return true }
        stats.constantsChanged += 1
        do { try solver.setConstant(cid, to: constant) } catch { return false }
        return true
    }

    /// The end of an edit in place (constants set, slots replaced): a failed change or a required
    /// constraint now broken rebuilds from the edited document (broken constraints follow
    /// processing order); otherwise the pivots it took and fresh values.
    mutating func finishEdit(_ stats: EditStats, failed: Bool, pivotsBefore: Int) -> EditStats {
        if failed || solver.brokenCount > 0 {
            build(rememberingDelegates: delegateMemory)
            return EditStats(rebuilt: true, added: compiled.filter(\.active).count, pivots: solver.statistics.pivots)
        }
        var stats = stats
        stats.pivots = solver.statistics.pivots - pivotsBefore
        // Constraints added or removed may have changed what is ambiguous; constants cannot.
        if stats.added + stats.removed > 0 { ambiguityStale = true }
        solver.updateValues()
        if rebuildIfDue(afterRemovals: stats.removed > 0) { stats.rebuilt = true }
        return stats
    }
}

extension EditStats {
    init(rebuilt: Bool, added: Int, pivots: Int) {
        self.init()
        self.rebuilt = rebuilt
        self.added = added
        self.pivots = pivots
    }
}
