import LayoutModel

/// One change of a held document, as `LayoutSystem.apply(_:)` takes it: the document it leads to
/// is what counts; the kind says how little the caller knows has changed, so that the engine can
/// choose the cheapest exact path.
public enum LayoutEdit: Sendable {
    /// The constraint entry at `entry` (position in `document.constraints`), which has exactly one
    /// item, gets the item constant `constant`; nothing else changes.
    case constant(entry: Int, constant: Double)
    /// The view at `view` (position in `document.views`), whose frame gives the sizes named,
    /// gets those sizes; nothing else changes.
    case sizes(view: Int, width: Double?, height: Double?)
    /// Views and constraint entries replaced by the ones with the same ids (no view's `parent`,
    /// `kind` or `id` changes, none is added or removed).
    case members(views: [View], entries: [ConstraintEntry])
    /// A whole new document.
    case document(Document)
}

extension LayoutSystem {
    /// Moves the system to the document `edit` leads to. The result is the state a fresh solve of
    /// that document gives (to the conformance tolerance), whichever path the edit takes.
    ///
    /// The paths, tried from the cheapest: a constant changed in place (`setConstant(ofEntry:to:)`),
    /// a root's sizes suggested as edit-variable values (`resizeRoot`), members swapped one by one
    /// (`replace(views:entries:)`), and the delta between two compiled documents (`apply(Document)`).
    /// Each declines, having changed nothing, where it would not land where a fresh solve lands
    /// (`when` rules, broken constraints, other fields changed); then the next one takes the edit.
    ///
    /// Whichever path it takes, text views whose width moved are measured again and solved until
    /// they settle (`settleText`): the one place every edit ends, as every fresh solve ends in
    /// `init` with the same loop.
    @discardableResult
    public mutating func apply(_ edit: LayoutEdit) -> EditStats {
        var stats = applyWithoutText(edit)
        stats.add(settleText())
        return stats
    }

    private mutating func applyWithoutText(_ edit: LayoutEdit) -> EditStats {
        switch edit {
        case .constant(let entry, let constant):
            if let stats = setConstant(ofEntry: entry, to: constant) { return stats }
            return replace(views: [], entries: [document.constraints[entry].withItemConstant(constant)])
        case .sizes(let view, let width, let height):
            if let stats = resizeRoot(at: view, width: width, height: height) { return stats }
            return replace(views: [document.views[view].withSizes(width: width, height: height)], entries: [])
        case .members(let views, let entries):
            return replace(views: views, entries: entries)
        case .document(let next):
            let stats = apply(next)
            // A whole-document edit may have grown the solver's arrays: a held system gives the
            // spare capacity back, as a new session does.
            compact()
            return stats
        }
    }

    /// A root's new sizes as `replace` would suggest them (only the sizes that differ); nil, having
    /// changed nothing, when the view is not a root or `resizeRoot` declines.
    private mutating func resizeRoot(at p: Int, width: Double?, height: Double?) -> EditStats? {
        // Field by field: a copy of the view would retain each of its strings and arrays.
        guard document.views[p].isRoot else { return nil }
        let now = document.views[p].frame
        return resizeRoot(document.views[p].id, width: width.flatMap { $0 != now.width ? $0 : nil },
                          height: height.flatMap { $0 != now.height ? $0 : nil })
    }
}

extension ConstraintEntry {
    /// The entry with its one item's constant `c` (what `LayoutEdit.constant` makes of it).
    public func withItemConstant(_ c: Double) -> ConstraintEntry {
        var entry = self
        entry.items[0].constant = c
        return entry
    }
}

extension View {
    /// The view with the sizes given (what `LayoutEdit.sizes` makes of it).
    public func withSizes(width: Double?, height: Double?) -> View {
        var view = self
        if let width { view.frame.width = width }
        if let height { view.frame.height = height }
        return view
    }
}
