import JSON
import LayoutEngine
import LayoutModel

/// The engine path a merge patch takes, from the patch's shape. Whatever the path, the session
/// ends in the state a fresh solve of the patched document gives (the fast paths only skip
/// recompiling what the patch cannot have touched; the result is checked against the validated
/// document and completed with `apply` when a fast path declines).
///
/// - `resizeRoot`: the patch is exactly `{"views": {R: {"frame": {"width"?: n, "height"?: n}}}}`
///   for a root R: edit suggestions on the root size constraints.
/// - `replaceEntries`: the patch is exactly `{"constraints": {id: value, ...}}` where every id
///   is an existing entry and no value is `null`, and neither the old nor the new entries use
///   `when` rules: each entry is swapped in place (a changed constant stays in the solver and
///   only its constant changes).
/// - `general`: anything else (views added or removed, visibility, flags, delegate, removals,
///   new entries): `LayoutSystem.apply`, which still touches only the delta.
enum PatchPlan {
    case resizeRoot(id: String, width: Double?, height: Double?)
    case replaceEntries([ConstraintEntry])
    case general

    static func classify(_ patch: JSONValue, canonical: JSONValue, current: Document, next: Document) -> PatchPlan {
        guard case .object(let top) = patch, top.count == 1 else { return .general }
        if let views = top["views"]?.objectValue {
            return rootResize(views, current: current, next: next) ?? .general
        }
        if let constraints = top["constraints"]?.objectValue {
            return entries(constraints, canonical: canonical, current: current, next: next) ?? .general
        }
        return .general
    }

    private static func rootResize(_ views: JSONObject, current: Document, next: Document) -> PatchPlan? {
        guard views.count == 1, let id = views.keys.first, let member = views.values.first?.objectValue,
              member.count == 1, let frame = member["frame"]?.objectValue, !frame.isEmpty,
              frame.keys.allSatisfy({ $0 == "width" || $0 == "height" }),
              frame.values.allSatisfy({ $0.numberValue != nil }),
              let old = current.views.first(where: { $0.id == id }), old.isRoot,
              let new = next.views.first(where: { $0.id == id }), new.isRoot
        else { return nil }
        return .resizeRoot(id: id, width: frame["width"] != nil ? new.frame.width : nil,
                           height: frame["height"] != nil ? new.frame.height : nil)
    }

    private static func entries(_ patch: JSONObject, canonical: JSONValue, current: Document,
                                next: Document) -> PatchPlan? {
        guard !patch.isEmpty, let existing = canonical["constraints"]?.objectValue else { return nil }
        let oldIndex = EntryIndex(current.constraints, wanted: patch.count)
        let newIndex = EntryIndex(next.constraints, wanted: patch.count)
        var out: [ConstraintEntry] = []
        out.reserveCapacity(patch.count)
        for (id, value) in patch.entries {
            guard !value.isNull, existing[id] != nil,
                  let old = oldIndex.entry(id), let new = newIndex.entry(id),
                  !old.usesWhen, !new.usesWhen
            else { return nil }
            out.append(new)
        }
        return .replaceEntries(out)
    }
}

/// Entry lookup by id: a linear scan for a few ids, a dictionary for many.
private struct EntryIndex {
    let entries: [ConstraintEntry]
    let byID: [String: Int]?

    init(_ entries: [ConstraintEntry], wanted: Int) {
        self.entries = entries
        if wanted > 4 {
            var d = [String: Int](minimumCapacity: entries.count)
            for (i, e) in entries.enumerated() { d[e.id] = i }
            byID = d
        } else {
            byID = nil
        }
    }

    func entry(_ id: String) -> ConstraintEntry? {
        if let byID { return byID[id].map { entries[$0] } }
        return entries.first { $0.id == id }
    }
}

extension ConstraintEntry {
    var usesWhen: Bool { if case .when = activation { return true } else { return false } }
}

extension LayoutSystem {
    /// Moves to `next` by `plan`; the result is the state a fresh solve of `next` gives.
    mutating func edit(to next: Document, plan: PatchPlan) -> EditStats {
        var stats = EditStats()
        switch plan {
        case .general:
            return apply(next)
        case .resizeRoot(let id, let width, let height):
            if let s = resizeRoot(id, width: width, height: height) { stats = s }
        case .replaceEntries(let entries):
            for entry in entries {
                guard let s = replaceEntry(entry) else { break }
                stats.add(s)
            }
        }
        if document != next { stats.add(apply(next)) }
        return stats
    }
}

extension EditStats {
    mutating func add(_ other: EditStats) {
        added += other.added
        removed += other.removed
        constantsChanged += other.constantsChanged
        editsSuggested += other.editsSuggested
        pivots += other.pivots
        rebuilt = rebuilt || other.rebuilt
    }
}
