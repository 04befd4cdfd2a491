import JSON
import LayoutEngine
import LayoutModel

/// How a merge patch is applied to a session, from the patch's shape.
///
/// - `members`: the patch only changes fields of existing views and constraint entries (no view
///   or entry added or removed, no view's `parent`, `kind` or `id` touched, nothing else at the
///   top level). Each touched member is merged and validated alone, in the context of the current
///   document: no other member's validity can change, so this reports exactly what validating the
///   whole patched document would, and the edit costs what the patch touches, not the document.
/// - `invalid`: such a patch whose constraint entries have problems (pointers into the patched
///   canonical document; a view with problems sends the patch down the `general` path, which
///   also reports what the problem does to other entries).
/// - `general`: anything else: the whole patched document is validated and `apply` finds the delta.
enum PatchPlan {
    case members(MemberEdit)
    case invalid([Problem])
    case general

    /// View fields a `members` patch may change (the others can change the hierarchy, or which
    /// anchors exist for the constraints).
    static let editableViewFields: Set<String> = [
        "frame", "hidden", "alpha", "intrinsicSize", "hugging", "compressionResistance", "margins", "baseline",
        "text", "heightForWidth",
    ]

    /// - Parameter context: the session's `MemberContext`, made here when missing and needed.
    static func classify(_ patch: JSONValue, canonical: CanonicalDocument, system: LayoutSystem,
                         context: inout MemberContext?, limits: DocumentLimits) -> PatchPlan {
        guard case .object(let top) = patch,
              canonical.count(.views) == system.document.views.count,
              canonical.count(.constraints) == system.document.constraints.count else { return .general }
        var edit = MemberEdit()
        // Problems with where they sort: (top-level key position, member position).
        var problems: [(key: Int, member: Int, problems: [Problem])] = []
        for (key, membersValue) in top.entries {
            guard case .object(let members) = membersValue else { return .general }
            switch key {
            case "views":
                for (id, change) in members.entries {
                    guard case .object(let fields) = change, fields.keys.allSatisfy(editableViewFields.contains),
                          let position = system.viewPositions[id],
                          let existing = canonical.memberText(.views, at: position) else { return .general }
                    if let sized = NumberPatch.frame(change, text: existing, old: system.document.views[position],
                                                     limits: limits) {
                        // A new size for a view whose frame gave one already (`NumberPatch`): the
                        // sizes stay given, so `when` rules read as before.
                        if !MemberText.same(sized.text, existing) {
                            edit.views.append(.init(position: position, text: sized.text, value: sized.view))
                        }
                        continue
                    }
                    guard let text = MemberText.merge(existing, fields) else { return .general }
                    if MemberText.same(text, existing) { continue }
                    let json = Self.parse(text)
                    switch DocumentParser.parseView(json, id: id, viewPositions: system.viewPositions, limits: limits) {
                    case .success(var view):
                        // Whether a size is given decides if `when` predicates may compare it:
                        // other entries' validity would change, so the whole document is checked.
                        let old = system.document.views[position]
                        // An arranged view's parent may be implied by its stack, not written; such
                        // a patch changes no parent (`parent` is not editable here).
                        if view.parent == nil { view.parent = old.parent }
                        guard (old.frame.width == nil) == (view.frame.width == nil),
                              (old.frame.height == nil) == (view.frame.height == nil) else { return .general }
                        edit.views.append(.init(position: position, text: text, value: view))
                    case .failure:
                        // An invalid view field can change how other entries read (a size that
                        // is no longer given): the whole document says what is wrong.
                        return .general
                    }
                }
            case "constraints":
                for (id, change) in members.entries {
                    guard !change.isNull, let position = system.entryPosition(id),
                          let existing = canonical.memberText(.constraints, at: position) else { return .general }
                    // A new constant for an object-form entry (`NumberPatch`), else a full re-read.
                    if let changed = NumberPatch.constant(change, text: existing,
                                                          old: system.document.constraints[position],
                                                          dialect: system.document.dialect, limits: limits) {
                        if !MemberText.same(changed.text, existing) {
                            edit.entries.append(.init(position: position, text: changed.text, value: changed.entry))
                        }
                        continue
                    }
                    guard let merged = Self.merged(existing, change) else { return .general }
                    let memberContext = context ?? MemberContext(document: system.document,
                                                                 viewPositions: system.viewPositions)
                    context = memberContext
                    switch DocumentParser.parseConstraint(merged.json, id: id, context: memberContext, limits: limits) {
                    case .success(let entry):
                        if MemberText.same(merged.text, existing) { continue }
                        edit.entries.append(.init(position: position, text: merged.text, value: entry))
                    case .failure(let e):
                        problems.append((1, position, e.problems))
                    }
                }
            default:
                return .general
            }
        }
        if !problems.isEmpty {
            return .invalid(problems.sorted { ($0.key, $0.member) < ($1.key, $1.member) }.flatMap(\.problems))
        }
        return .members(edit)
    }

    /// The change a patch read by `NumberPatch.body` makes when the lane applies (`.change`, or
    /// `.unchanged` when the number(s) are the ones stored): the change `classify` would find for
    /// the same patch parsed, with the new number(s) kept as numbers (`LayoutEdit.constant`,
    /// `.sizes`) rather than as the member they make. nil when the lane does not apply: then the
    /// caller classifies `lane.tree`.
    static func laneChange(_ lane: NumberPatch.Body, canonical: CanonicalDocument, system: LayoutSystem,
                           limits: DocumentLimits, logged: [UInt8]) -> PatchDecision? {
        guard canonical.count(.views) == system.document.views.count,
              canonical.count(.constraints) == system.document.constraints.count else { return nil }
        let edit: LayoutEdit
        let member: (group: CanonicalDocument.Group, position: Int, text: [UInt8])
        switch lane {
        case .constant(let id, let value):
            guard let position = system.entryPosition(id),
                  let existing = canonical.memberText(.constraints, at: position) else { return nil }
            let items = system.document.constraints[position].items
            guard let text = NumberPatch.constantText(value, text: existing, items: items.count,
                                                      itemConstant: items.first?.constant ?? 0,
                                                      dialect: system.document.dialect, limits: limits) else { return nil }
            if MemberText.same(text, existing) { return .unchanged }
            edit = .constant(entry: position, constant: NumberPatch.itemConstant(value))
            member = (.constraints, position, text)
        case .size(let id, let width, let height, _):
            guard let position = system.viewPositions[id],
                  let existing = canonical.memberText(.views, at: position),
                  system.document.views[position].kind == .view,
                  let text = NumberPatch.frameText(width: width, height: height, text: existing,
                                                   current: system.document.views[position].frame,
                                                   limits: limits) else { return nil }
            if MemberText.same(text, existing) { return .unchanged }
            edit = .sizes(view: position, width: width, height: height)
            member = (.views, position, text)
        }
        return .change(SessionChange(solve: .edit(edit), canonical: .members([member]), logged: .mergePatch(logged)))
    }

    /// A constraint entry's canonical text after `change`, and the value to validate: the same,
    /// except that an `id` in the patch is validated (it must agree with the key) but not kept
    /// (canonical entries carry no `id`: the key is the id).
    private static func merged(_ existing: ArraySlice<UInt8>, _ change: JSONValue)
        -> (text: [UInt8], json: JSONValue)? {
        guard case .object(var fields) = change else {
            // Not an object: the patch replaces the entry.
            guard MemberText.isWritable(change) else { return nil }
            var json = change
            json.removeMember("id")
            return (JSONWriter.serialize(json), change)
        }
        guard let validated = MemberText.merge(existing, fields) else { return nil }
        guard fields["id"] != nil else { return (validated, parse(validated)) }
        fields["id"] = nil
        guard let kept = MemberText.merge(existing, fields) else { return nil }
        return (kept, parse(validated))
    }

    /// Text `MemberText.merge` wrote (from canonical text and parsed values): it parses.
    private static func parse(_ text: [UInt8]) -> JSONValue {
        (try? JSONParser.parse(text, maxDepth: 1024)) ?? .null
    }
}

/// The validated members of a `members` patch: their canonical text and model values.
struct MemberEdit {
    struct Change<Value> {
        /// Position of the member in the document's views or constraint entries.
        var position: Int
        /// The member's new canonical text.
        var text: [UInt8]
        var value: Value
    }
    var views: [Change<View>] = []
    var entries: [Change<ConstraintEntry>] = []

    /// Nothing changes (every member merged to what it was).
    var isEmpty: Bool { views.isEmpty && entries.isEmpty }

    /// The session change: the members replaced in the engine and in the canonical document.
    func change(logged: [UInt8]) -> SessionChange {
        SessionChange(solve: .edit(.members(views: views.map(\.value), entries: entries.map(\.value))),
                      canonical: .members(views.map { (.views, $0.position, $0.text) }
                                          + entries.map { (.constraints, $0.position, $0.text) }),
                      logged: .mergePatch(logged))
    }
}

/// What a PATCH does to a session, decided once, under its lock, against its current state.
enum PatchDecision {
    case change(SessionChange)
    /// The patched document is the current one: nothing is solved, the revision stays.
    case unchanged
    case failed(APIResponse)
}
