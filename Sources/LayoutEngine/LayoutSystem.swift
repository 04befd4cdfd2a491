import Cassowary
import LayoutModel

/// What an edit cost, as the API reports it in `stats`.
public struct EditStats: Equatable, Sendable {
    public var added = 0
    public var removed = 0
    public var constantsChanged = 0
    public var editsSuggested = 0
    public var pivots = 0
    /// True when the system was rebuilt: the edit could not be applied incrementally (a required
    /// conflict appeared or went away: broken constraints follow processing order), or many
    /// removals had left the solver holding far more than it uses, or every `rebuildInterval`
    /// incremental edits (see `rebuildIfDue`).
    public var rebuilt = false
    public init() {}
}

/// A compiled document held in a solver: the state of a session (or of one `solve`).
///
/// A value: copying it is cheap (copy-on-write storage), which is how a strict edit rolls back.
public struct LayoutSystem: Sendable {
    public internal(set) var document: Document
    var solver = Solver()
    var variables: [String: ViewVariables] = [:]
    /// The current compilation in processing order, and where each item sits in the solver.
    var compiled: [CompiledConstraint] = []
    var solverIDs: [ConstraintID?] = []
    /// Where each view's and each entry's constraints start in `compiled` (one more than the
    /// views / entries: the end). `compiled` is always the views' constraints in view order, then
    /// the entries' items in entry order (see `position(of:)`).
    var viewStart: [Int32] = []
    var entryStart: [Int32] = []
    /// The position in `compiled` of each solver constraint (by constraint index), for diagnostics.
    var positionOfConstraint = ConstraintPositions()
    /// A delegate constraint's last state (spec: with no entry it keeps its last state).
    var delegateMemory: [String: Bool] = [:]
    /// Lookups for the fast edit paths, rebuilt with the document.
    var entryIndex: [String: Int] = [:]
    var viewIndex: [String: Int] = [:]
    /// What `frames` reads, in view order (built after each compilation).
    var frameSlots: [FrameSlot] = []
    /// Each view's variables, in view order (built with `frameSlots`).
    var viewVariables: [ViewVariables?] = []
    /// Each solver variable's view position (-1: no view's), and each view's children (positions
    /// `children[childStart[i] ..< childStart[i + 1]]`), built with `frameSlots`: which frames an
    /// edit may have moved (see `movedFramePositions`).
    var viewOfVariable: [Int32] = []
    var childStart: [Int32] = []
    var children: [Int32] = []
    /// `diagnostics.inactive`, kept up to date by every edit that can switch an entry.
    var inactive: [String] = []
    /// `diagnostics.ambiguous` as last computed by `refreshDiagnostics`, and what it was computed
    /// from: it is current while no constraint was added or removed since (`ambiguityStale`) and
    /// the solver says its free directions are unchanged since `ambiguityStamp`.
    var ambiguous: [String] = []
    var ambiguityStamp: FreeDirectionsStamp?
    var ambiguityStale = true
    var activation: ActivationContext
    /// Some entry uses a `when` rule: its state may depend on anything, so edits re-evaluate all.
    var hasWhenRules = false
    /// The identity of the view list (the ids, in order): a new one whenever an edit gives other
    /// views. Edits of existing views keep it.
    public private(set) var viewList = ViewList()
    /// Incremental edits since the last build, and how many are allowed before the next edit
    /// rebuilds (see `rebuildIfDue`).
    var editsSinceBuild = 0
    public var rebuildInterval = LayoutSystem.defaultRebuildInterval
    /// Every 4,096 incremental edits a system is solved again from its document. Each edit moves
    /// row constants and values by floating-point sums; a rebuild bounds how many such steps a
    /// frame can be away from a fresh solve (which every edit must equal, to the conformance
    /// tolerance), whatever the edits were. A 50-view form builds in 0.34 ms (`layout-bench`,
    /// case `build`): 0.08 µs an edit.
    public static let defaultRebuildInterval = 4096
    /// Text views (positions in `document.views`), what each was last measured at, and those
    /// that did not settle (see LayoutSystem+Text).
    var textViews: [Int] = []
    var textMeasures: [String: TextMeasure] = [:]
    var unsettled: [String] = []
    /// A system solved once and never edited (`solveOnce`): a build lets go of what only edits
    /// read again (see `releasesForEdits`), so that a cold solve's peak holds less.
    var solvedOnce = false

    /// Compiles `document` and solves it from scratch.
    public init(document: Document) {
        self.init(document: document, delegateMemory: [:])
    }

    /// Compiles `document` and solves it from scratch, with each `delegate` constraint that has no
    /// entry in the document's `delegate` in the state `delegateMemory` gives (the state a session
    /// remembered: `rememberedDelegates`), as the session it came from had it.
    public init(document: Document, delegateMemory: [String: Bool]) {
        self.init(document: document, delegateMemory: delegateMemory, once: false)
    }

    /// The one build from a document; `once`: a system solved once and never edited
    /// (`solveOnce`), whose build lets go of what only edits read.
    init(document: consuming Document, delegateMemory: [String: Bool], once: Bool) {
        self.activation = ActivationContext(document: copy document, delegateMemory: delegateMemory)
        self.document = document
        self.solvedOnce = once
        build(rememberingDelegates: delegateMemory)
        settleText()
    }

    /// The last state of each `delegate` constraint: what it keeps when the document's `delegate`
    /// loses its entry (spec section 5). A session that is rebuilt elsewhere passes it on.
    public var rememberedDelegates: [String: Bool] { delegateMemory }

    /// The document's view ids → position (compilation and the edit paths need them).
    static func viewIndex(_ document: Document) -> [String: Int] {
        var index = [String: Int](minimumCapacity: document.views.count)
        for (i, v) in document.views.enumerated() { index[v.id] = i }
        return index
    }

    /// Rebuilds the lookups for the current document; `index` is its `viewIndex`.
    mutating func indexDocument(_ context: ActivationContext, index: [String: Int]) {
        activation = context
        viewIndex = index
        hasWhenRules = document.constraints.contains { if case .when = $0.activation { return true } else { return false } }
        entryIndex = Dictionary(minimumCapacity: document.constraints.count)
        for (i, e) in document.constraints.enumerated() { entryIndex[e.id] = i }
        textViews = document.views.indices.filter { document.views[$0].text != nil }
    }

    @discardableResult
    mutating func build(rememberingDelegates memory: [String: Bool], clock: (() -> UInt64)? = nil) -> BuildPhases {
        var phases = BuildPhases()
        var last = clock?() ?? 0
        func lap(_ field: WritableKeyPath<BuildPhases, UInt64>) {
            guard let clock else { return }
            let now = clock()
            phases[keyPath: field] = now - last
            last = now
        }
        editsSinceBuild = 0
        solver = Solver()
        variables = [:]
        positionOfConstraint = ConstraintPositions()
        let context = ActivationContext(document: document, delegateMemory: memory)
        indexDocument(context, index: Self.viewIndex(document))
        (compiled, viewStart, entryStart) = compile(document, index: viewIndex, activation: context)
        solverIDs = Array(repeating: nil, count: compiled.count)
        // Read from the document's entries and the activation rules only, before a one-shot build
        // lets go of the entries' items.
        delegateMemory = nextDelegateMemory(context)
        if releasesForEdits { releaseEntryItems() }
        lap(\.compileNanoseconds)
        // Required constraints first, in processing order (which decides what breaks), then the
        // optional ones: they cannot break, a unique optimum does not depend on their order, and
        // adding preferences before the structure that pins them costs degenerate pivots.
        for (i, c) in compiled.enumerated() where c.active && c.priority >= Priority.required {
            solverIDs[i] = install(c, at: i)
        }
        lap(\.requiredNanoseconds)
        for (i, c) in compiled.enumerated() where c.active && c.priority < Priority.required {
            solverIDs[i] = install(c, at: i)
        }
        lap(\.optionalNanoseconds)
        indexFrames()
        inactive = inactiveEntries
        ambiguityStale = true
        solver.updateValues()
        lap(\.finishNanoseconds)
        return phases
    }

    /// Adds a compiled constraint to the solver (broken when it conflicts).
    mutating func install(_ c: CompiledConstraint, at position: Int) -> ConstraintID? {
        // Priorities are validated by the model; a refusal here would be a bug, never a crash.
        guard let r = try? solver.add(c.expression, c.relation, priority: c.priority, onConflict: .keepBroken) else {
            return nil
        }
        positionOfConstraint[r.id.index] = Int32(position)
        return r.id
    }

    func nextDelegateMemory(_ context: ActivationContext) -> [String: Bool] {
        var memory: [String: Bool] = [:]
        for entry in document.constraints where entry.activation == .delegate {
            memory[entry.id] = context.ruleHolds(entry, entry.items.first ?? LinearConstraint(
                terms: [], constant: 0, relation: .equal, priority: 1000, views: [], firstView: nil))
        }
        return memory
    }

    /// Moves to `newDocument` with the fewest solver operations: removals first, then constant
    /// changes in place (root sizes as edit suggestions), then additions. When a required conflict
    /// is involved before or after, the system is rebuilt so that broken constraints follow the
    /// processing order exactly as a fresh solve would.
    @discardableResult
    mutating func apply(_ newDocument: Document) -> EditStats {
        var stats = EditStats()
        let pivotsBefore = solver.statistics.pivots
        let hadBroken = solver.brokenCount > 0
        let context = ActivationContext(document: newDocument, delegateMemory: delegateMemory)
        let nextIndex = Self.viewIndex(newDocument)
        let (next, nextViewStart, nextEntryStart) = compile(newDocument, index: nextIndex, activation: context)
        var nextPosition: [CompiledConstraint.Key: Int] = Dictionary(minimumCapacity: next.count)
        for (i, c) in next.enumerated() { nextPosition[c.key] = i }
        var nextIDs = [ConstraintID?](repeating: nil, count: next.count)
        // The position in `compiled` of what each constraint of `next` keeps.
        var previous = [Int](repeating: -1, count: next.count)
        var failed = hadBroken

        // Removals first.
        for (i, old) in compiled.enumerated() {
            guard let id = solverIDs[i] else { continue }
            if let j = nextPosition[old.key], next[j].active, next[j].hasSameShape(as: old) {
                nextIDs[j] = id
                previous[j] = i
                continue
            }
            try? solver.remove(id)
            positionOfConstraint[id.index] = nil
            stats.removed += 1
        }
        // Constant changes in place, then additions, in processing order.
        if !failed {
            for (j, c) in next.enumerated() where c.active {
                if let id = nextIDs[j] {
                    let old = compiled[previous[j]]
                    if old.constant != c.constant {
                        do {
                            try solver.setConstant(id, to: c.constant)
                        } catch {
                            failed = true
                            break
                        }
                        if c.isRootSize && old.isRootSize { stats.editsSuggested += 1 } else { stats.constantsChanged += 1 }
                    }
                } else {
                    nextIDs[j] = install(c, at: j)
                    stats.added += 1
                }
            }
        }
        if !newDocument.views.elementsEqual(document.views, by: { $0.id == $1.id }) { viewList = ViewList() }
        document = newDocument
        if failed || solver.brokenCount > 0 {
            let memory = delegateMemory
            build(rememberingDelegates: memory)
            stats.rebuilt = true
            stats.added = compiled.filter(\.active).count
            stats.pivots = solver.statistics.pivots
            return stats
        }
        compiled = next
        solverIDs = nextIDs
        viewStart = nextViewStart
        entryStart = nextEntryStart
        positionOfConstraint = ConstraintPositions(minimumCapacity: next.count)
        for (j, id) in nextIDs.enumerated() { if let id { positionOfConstraint[id.index] = Int32(j) } }
        delegateMemory = nextDelegateMemory(context)
        indexDocument(context, index: nextIndex)
        indexFrames()
        inactive = inactiveEntries
        ambiguityStale = true
        stats.pivots = solver.statistics.pivots - pivotsBefore
        solver.updateValues()
        if rebuildIfDue(afterRemovals: stats.removed > 0) { stats.rebuilt = true }
        return stats
    }

    /// Counts an incremental edit and rebuilds the system from its document when it is due:
    /// - after removals, when the solver holds far more symbols and slots than it uses (removals
    ///   never give numbers back, so a session that keeps switching constraints on and off would
    ///   otherwise grow without bound; amortised, O(1) per removal);
    /// - once `rebuildInterval` incremental edits have been made since the last build.
    /// The rebuild lands where a fresh solve of the document does, as every edit must (the
    /// incremental steps, up to their rounding).
    /// - Returns: true when it rebuilt.
    @discardableResult
    mutating func rebuildIfDue(afterRemovals removed: Bool) -> Bool {
        editsSinceBuild += 1
        let outgrown = removed && solver.statistics.constraintSlots > 2 * positionOfConstraint.count + 256
        guard outgrown || editsSinceBuild >= rebuildInterval else { return false }
        build(rememberingDelegates: delegateMemory)
        solver.compact()
        return true
    }

    /// Gives back the spare capacity the build left in the solver's arrays (a quarter to a half of
    /// what it holds): for a system that is kept, such as a session's; not worth it for a one-shot
    /// solve. Changes no value.
    public mutating func compact() {
        solver.compact()
    }

    /// Pivots performed by the solver since it was built.
    public var pivots: Int { solver.statistics.pivots }
    public var solverStatistics: SolverStatistics { solver.currentStatistics }
}

/// A view list's identity (`LayoutSystem.viewList`): whoever keeps something per view position
/// (a session's frames) compares it with `===` to know that the positions still name the same
/// views, without comparing every id (which reads every view of the document).
public final class ViewList: Sendable {
    init() {}
}
