import LayoutModel

// Edits that replace existing views and constraint entries in place (same ids, same hierarchy):
// what a merge patch on a session usually is. The solver work is the same delta `apply` finds;
// the point is to skip recompiling and comparing the members the edit did not touch
// (`LayoutEdit.members`).

extension LayoutSystem {
    /// The document's view ids → position in `document.views`.
    public var viewPositions: [String: Int] { viewIndex }
    /// Position of the constraint entry `id` in `document.constraints`.
    public func entryPosition(_ id: String) -> Int? { entryIndex[id] }

    /// Replaces views and constraint entries of the document by the ones with the same ids.
    ///
    /// A root whose only change is its width and/or height becomes edit suggestions; an entry
    /// without `when` rules is swapped alone (a changed constant changes in place); anything else
    /// (visibility, intrinsic sizes, `when` rules) goes through `apply` with the edited document.
    /// The result is the state a fresh solve of the edited document gives.
    /// - Precondition: every id exists, and no view changes its `parent` or `kind` (the caller
    ///   validated the members against the current document).
    @discardableResult
    mutating func replace(views: [View], entries: [ConstraintEntry]) -> EditStats {
        var resizes: [(id: String, width: Double?, height: Double?)] = []
        var visibility: [View] = []
        var general = false
        for view in views {
            guard let i = viewIndex[view.id] else { general = true; continue }
            let old = document.views[i]
            if old == view { continue }
            if let r = Self.rootResize(from: old, to: view) {
                resizes.append(r)
            } else if Self.onlyVisibilityDiffers(old, view) {
                visibility.append(view)
            } else {
                general = true
            }
        }
        if !general {
            general = entries.contains { e in
                e.usesWhen || entryIndex[e.id].map { document.constraints[$0].usesWhen } ?? true
            }
        }
        if general || (hasWhenRules && !(visibility.isEmpty && resizes.isEmpty)) {
            return fallback(EditStats(), views: views, entries: entries)
        }
        var stats = EditStats()
        if !visibility.isEmpty {
            guard let s = setVisibility(visibility) else { return fallback(stats, views: views, entries: entries) }
            stats.add(s)
            if s.rebuilt { return fallback(stats, views: views, entries: entries) }
            // Arranged views hidden or shown: their stacks' constraints (the views are in the
            // document now, so a rebuild here has everything; `fallback` finds nothing left).
            let r = restack(after: visibility)
            stats.add(r)
            if r.rebuilt { return fallback(stats, views: views, entries: entries) }
        }
        for r in resizes {
            if let s = resizeRoot(r.id, width: r.width, height: r.height) { stats.add(s) } else {
                return fallback(stats, views: views, entries: entries)
            }
        }
        for entry in entries where entryIndex[entry.id].map({ document.constraints[$0] != entry }) ?? false {
            if let s = replaceEntry(entry) { stats.add(s) } else {
                return fallback(stats, views: views, entries: entries)
            }
        }
        return stats
    }

    /// Views whose `hidden` or `alpha` changed: only entries whose rule looks at visibility
    /// (`bothVisible`, `firstInvisible`) can switch, and only those are re-evaluated.
    /// - Returns: nil (nothing changed) when `when` rules exist or constraints are broken.
    mutating func setVisibility(_ views: [View]) -> EditStats? {
        guard !hasWhenRules, solver.brokenCount == 0 else { return nil }
        for view in views {
            guard let i = viewIndex[view.id] else { return nil }
            document.views[i] = view
        }
        // Hidden views keep their constraints; without rules that read visibility nothing changes.
        guard activation.hasVisibility else { return EditStats() }
        activation = ActivationContext(document: document, delegateMemory: delegateMemory)
        var stats = EditStats()
        for entry in document.constraints where ActivationContext.needsVisibility(entry.activation) {
            guard let s = replaceEntry(entry) else { break }
            stats.add(s)
            if s.rebuilt { break }  // rebuilt from the edited document: everything is in place
        }
        return stats
    }

    static func onlyVisibilityDiffers(_ old: View, _ new: View) -> Bool {
        var probe = old
        probe.hidden = new.hidden
        probe.alpha = new.alpha
        return probe == new
    }

    /// Applies the edited document through `apply` (after `done`, the part a fast path did):
    /// for edits no fast path takes, and those one declined part-way (broken constraints).
    private mutating func fallback(_ done: EditStats, views: [View], entries: [ConstraintEntry]) -> EditStats {
        var next = document
        for view in views { if let i = viewIndex[view.id] { next.views[i] = view } }
        for entry in entries { if let i = entryIndex[entry.id] { next.constraints[i] = entry } }
        var stats = done
        if document != next { stats.add(apply(next)) }
        return stats
    }

    /// The sizes to suggest when `new` differs from `old` only in a given width or height of a
    /// root (given before and after); nil otherwise.
    static func rootResize(from old: View, to new: View) -> (id: String, width: Double?, height: Double?)? {
        guard old.isRoot, new.isRoot,
              (old.frame.width == nil) == (new.frame.width == nil),
              (old.frame.height == nil) == (new.frame.height == nil) else { return nil }
        var probe = old
        probe.frame.width = new.frame.width
        probe.frame.height = new.frame.height
        guard probe == new else { return nil }
        return (new.id, old.frame.width != new.frame.width ? new.frame.width : nil,
                old.frame.height != new.frame.height ? new.frame.height : nil)
    }
}

extension ConstraintEntry {
    /// The entry is switched by a `when` predicate (which may read any view or flag).
    public var usesWhen: Bool { if case .when = activation { return true } else { return false } }
}

extension EditStats {
    /// Adds another edit's counts.
    public mutating func add(_ other: EditStats) {
        added += other.added
        removed += other.removed
        constantsChanged += other.constantsChanged
        editsSuggested += other.editsSuggested
        pivots += other.pivots
        rebuilt = rebuilt || other.rebuilt
    }
}
