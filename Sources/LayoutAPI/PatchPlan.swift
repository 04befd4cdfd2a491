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
                    case .success(let view):
                        // Whether a size is given decides if `when` predicates may compare it:
                        // other entries' validity would change, so the whole document is checked.
                        let old = system.document.views[position]
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

    /// The edit of a patch read by `NumberPatch.body`: the `members` plan `classify` gives for the
    /// same patch parsed, when the lane applies, with the change kept as the number(s) it sets
    /// (`MemberEdit.constants`, `sizes`) rather than as the member it makes; nil when the lane
    /// does not apply (then the caller parses the patch and classifies it as usual).
    static func edit(for body: NumberPatch.Body, canonical: CanonicalDocument, system: LayoutSystem,
                     limits: DocumentLimits) -> MemberEdit? {
        guard canonical.count(.views) == system.document.views.count,
              canonical.count(.constraints) == system.document.constraints.count else { return nil }
        var edit = MemberEdit()
        switch body {
        case .constant(let id, let value):
            guard let position = system.entryPosition(id),
                  let existing = canonical.memberText(.constraints, at: position) else { return nil }
            let items = system.document.constraints[position].items
            guard let text = NumberPatch.constantText(value, text: existing, items: items.count,
                                                      itemConstant: items.first?.constant ?? 0,
                                                      dialect: system.document.dialect, limits: limits) else { return nil }
            if !MemberText.same(text, existing) {
                edit.constants.append(.init(position: position, text: text, value: NumberPatch.itemConstant(value)))
            }
        case .size(let id, let width, let height):
            guard let position = system.viewPositions[id],
                  let existing = canonical.memberText(.views, at: position),
                  system.document.views[position].kind == .view,
                  let text = NumberPatch.frameText(width: width, height: height, text: existing,
                                                   current: system.document.views[position].frame,
                                                   limits: limits) else { return nil }
            if !MemberText.same(text, existing) {
                edit.sizes.append(.init(position: position, text: text, value: .init(width: width, height: height)))
            }
        }
        return edit
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
    /// Sizes a lane patch gives a view (`NumberPatch`).
    struct Sizes {
        var width: Double?
        var height: Double?
    }
    var views: [Change<View>] = []
    var entries: [Change<ConstraintEntry>] = []
    /// Entries whose one item gets a new constant (the value), from `NumberPatch.body`.
    var constants: [Change<Double>] = []
    /// Views that get new sizes, from `NumberPatch.body`.
    var sizes: [Change<Sizes>] = []

    /// Nothing changes (every member merged to what it was).
    var isEmpty: Bool { views.isEmpty && entries.isEmpty && constants.isEmpty && sizes.isEmpty }

    /// Writes the changed members into the canonical document.
    func write(into canonical: inout CanonicalDocument) {
        for c in views { canonical.replace(.views, at: c.position, text: c.text) }
        for c in sizes { canonical.replace(.views, at: c.position, text: c.text) }
        for c in entries { canonical.replace(.constraints, at: c.position, text: c.text) }
        for c in constants { canonical.replace(.constraints, at: c.position, text: c.text) }
    }

    /// Edits `system` as `replace(views:entries:)` does with the members this edit makes. A lone
    /// lane change goes to the engine's in-place path (`setConstant(ofEntry:to:)`,
    /// `resizeRoot`), which declines, having changed nothing, whenever `replace` would do
    /// something else; then the members are made and replaced.
    func apply(to system: inout LayoutSystem) -> EditStats {
        if views.isEmpty && entries.isEmpty {
            if sizes.isEmpty, constants.count == 1,
               let stats = system.setConstant(ofEntry: constants[0].position, to: constants[0].value) {
                return stats
            }
            if constants.isEmpty, sizes.count == 1, let stats = Self.resize(&system, sizes[0]) {
                return stats
            }
        }
        var views = self.views.map(\.value), entries = self.entries.map(\.value)
        for c in sizes {
            views.append(NumberPatch.sized(system.document.views[c.position], width: c.value.width,
                                           height: c.value.height))
        }
        for c in constants {
            entries.append(NumberPatch.withConstant(system.document.constraints[c.position], c.value))
        }
        return system.replace(views: views, entries: entries)
    }

    /// A root's new sizes as `replace` suggests them (only the sizes that differ); nil when the
    /// view is not a root or `resizeRoot` declines.
    private static func resize(_ system: inout LayoutSystem, _ change: Change<Sizes>) -> EditStats? {
        // Field by field: a copy of the view would retain each of its strings and arrays.
        let p = change.position
        guard system.document.views[p].isRoot else { return nil }
        let now = system.document.views[p].frame
        let width = change.value.width.flatMap { $0 != now.width ? $0 : nil }
        let height = change.value.height.flatMap { $0 != now.height ? $0 : nil }
        return system.resizeRoot(system.document.views[p].id, width: width, height: height)
    }
}
