import Cassowary
import JSON
import LayoutModel

/// A view's frame: x and y relative to the parent (or absolute), width, height.
public struct Frame: Equatable, Sendable {
    public var x: Double
    public var y: Double
    public var width: Double
    public var height: Double
    public init(x: Double, y: Double, width: Double, height: Double) {
        self.x = x; self.y = y; self.width = width; self.height = height
    }
}

public struct BrokenConstraint: Equatable, Sendable {
    public var id: String
    public var conflictsWith: [String]
    /// The entry's `group` and `identifier` labels, carried through to diagnostics.
    public var group: String? = nil
    public var identifier: String? = nil
}

public struct Diagnostics: Equatable, Sendable {
    public var broken: [BrokenConstraint] = []
    public var ambiguous: [String] = []
    public var inactive: [String] = []
    /// Text views whose height still changed after `LayoutSystem.maxTextRounds` re-solves
    /// (docs/document.md, "Text that wraps"); answered only when not empty.
    public var unsettled: [String] = []
    public init() {}
}

public enum Coordinates: Sendable {
    case relative
    case absolute
}

extension LayoutSystem {
    /// Values snap to 1e-9 (solver noise such as 99.99999999999997 prints as 100) and -0 is 0.
    @inline(__always)
    static func clean(_ v: Double) -> Double {
        var r = v
        if abs(v) < 1e9 { r = JSONChunk.roundedHalfAwayFromZero(v * 1e9) / 1e9 }
        return r == 0 ? 0 : r
    }

    /// Frames in view order.
    public func frames(_ coordinates: Coordinates = .relative) -> [(id: String, frame: Frame)] {
        var out: [(id: String, frame: Frame)] = []
        out.reserveCapacity(document.views.count)
        for i in document.views.indices {
            out.append((document.views[i].id, frame(at: i, coordinates)))
        }
        return out
    }

    public func frame(of view: View, _ coordinates: Coordinates = .relative) -> Frame {
        guard let i = viewIndex[view.id] else { return Frame(x: 0, y: 0, width: 0, height: 0) }
        return frame(at: i, coordinates)
    }

    /// The frame of `document.views[i]`.
    public func frame(at i: Int, _ coordinates: Coordinates) -> Frame {
        frame(at: i, coordinates) { solver.value(ofIndex: $0) }
    }

    /// Brings the relative frames in `frames` (one per view, in view order) up to date at
    /// `positions` (ascending; nil: every view) and returns the positions whose frame changed.
    /// One loop here rather than a closure called per frame from another module: a session
    /// refreshes the frames an edit moved on every PATCH.
    public func updateRelativeFrames(_ frames: inout [(id: String, frame: Frame)], at positions: [Int]?) -> [Int] {
        var changed: [Int] = []
        changed.reserveCapacity(positions?.count ?? frames.count)
        let n = min(frames.count, document.views.count)
        // Every view only when the moved ones are not known (after a rebuild): rare enough for
        // the list of all positions to cost nothing worth a second loop.
        let indices = positions ?? Array(0..<n)
        // Over the frames' buffer: through the array, each store checked it was unique.
        let done: Void? = solver.withCurrentValues { values in
            frames.withUnsafeMutableBufferPointer { frames in
                for i in indices where i < n {
                    let f = frame(at: i, .relative) { values[Int($0)] }
                    if f != frames[i].frame {
                        frames[i].frame = f
                        changed.append(i)
                    }
                }
            }
        }
        if done == nil {
            for i in indices where i < n {
                let f = frame(at: i, .relative)
                if f != frames[i].frame {
                    frames[i].frame = f
                    changed.append(i)
                }
            }
        }
        return changed
    }

    /// `value` reads a variable's value by its index (`Variable.index`).
    @inline(__always)
    private func frame(at i: Int, _ coordinates: Coordinates, value: (Int32) -> Double) -> Frame {
        guard i < frameSlots.count, frameSlots[i].width >= 0 else { return Frame(x: 0, y: 0, width: 0, height: 0) }
        let slot = frameSlots[i]
        var x = value(slot.minX), y = value(slot.minY)
        // Relative: to the parent. Absolute: to the view's root (spec section 6); a root: as given.
        let (ox, oy) = coordinates == .relative ? (slot.parentX, slot.parentY) : (slot.rootX, slot.rootY)
        if ox >= 0 {
            x -= value(ox)
            y -= value(oy)
        }
        return Frame(x: Self.clean(x), y: Self.clean(y), width: Self.clean(value(slot.width)),
                     height: Self.clean(value(slot.height)))
    }

    public var diagnostics: Diagnostics {
        diagnostics(ambiguous: ambiguityIsCurrent ? ambiguous : ambiguousViews)
    }

    private func diagnostics(ambiguous: [String]) -> Diagnostics {
        var d = Diagnostics()
        d.broken = brokenConstraints
        d.ambiguous = ambiguous
        d.inactive = inactive
        d.unsettled = unsettled
        return d
    }

    /// Broken entries in processing order, each with the ids it conflicts with.
    var brokenConstraints: [BrokenConstraint] {
        if solver.brokenCount == 0 { return [] }
        let broken = solver.brokenConstraints
        if broken.isEmpty { return [] }
        var byOwner: [String: (order: Int, conflicts: [String])] = [:]
        for (id, conflicts) in broken {
            guard let i = positionOfConstraint[id.index].map(Int.init) else { continue }
            let owner = compiled[i].ownerID
            var entry = byOwner[owner] ?? (i, [])
            entry.order = min(entry.order, i)
            for c in conflicts {
                guard let ci = positionOfConstraint[c.index].map(Int.init) else { continue }
                let name = compiled[ci].ownerID
                if name != owner && !entry.conflicts.contains(name) { entry.conflicts.append(name) }
            }
            byOwner[owner] = entry
        }
        return byOwner.sorted { $0.value.order < $1.value.order }.map { owner, entry in
            let labels = entryIndex[owner].map { document.constraints[$0] }
            return BrokenConstraint(id: owner, conflictsWith: entry.conflicts,
                                    group: labels?.group, identifier: labels?.identifier)
        }
    }

    /// Brings the kept `diagnostics.ambiguous` up to date, so that reading `diagnostics` costs
    /// nothing until the next edit. It is recomputed only when an edit added or removed a
    /// constraint, pivoted, or changed which restricted rows are degenerate: the only inputs of
    /// `Solver.freeDirections` (see `Solver.freeDirectionsUnchanged(since:)`; a constant change
    /// without a pivot can still open a free direction). Edits do not do this themselves: a
    /// caller that never reads diagnostics (a benchmark, a one-shot solve) never pays for them.
    /// - Returns: the diagnostics (what `diagnostics` would answer, without checking again).
    @discardableResult
    public mutating func refreshDiagnostics() -> Diagnostics {
        if !ambiguityIsCurrent {
            ambiguous = ambiguousViews
            ambiguityStamp = nil
            ambiguityStale = false
        }
        // The stamp describes the solver now: the next check needs only the rows shifted since.
        ambiguityStamp = solver.stampFreeDirections(keeping: ambiguityStamp)
        return diagnostics(ambiguous: ambiguous)
    }

    /// The kept `ambiguous` still describes the solver.
    var ambiguityIsCurrent: Bool {
        guard !ambiguityStale, let ambiguityStamp else { return false }
        return solver.freeDirectionsUnchanged(since: ambiguityStamp)
    }

    /// Views whose returned frame values could differ in another optimal solution.
    ///
    /// A view's frame reads its own four variables and its parent's minX and minY, so a direction
    /// can only move the views that read one of the variables it moves: each direction looks at
    /// those alone (asking every view of every direction was quadratic: 20,000 views left free,
    /// each with its own directions, took half a minute).
    var ambiguousViews: [String] {
        let directions = solver.freeDirections()
        if directions.isEmpty { return [] }
        var readers: [Int32: [Int]] = [:]  // variable index → positions of the views that read it
        var frameVariables: [(own: ViewVariables, parent: ViewVariables?)?] = []
        frameVariables.reserveCapacity(document.views.count)
        for (i, view) in document.views.enumerated() {
            guard let v = variables[view.id] else { frameVariables.append(nil); continue }
            let parent = view.parent.flatMap { variables[$0] }
            frameVariables.append((v, parent))
            for x in [v.minX, v.minY, v.width, v.height] { readers[x.index, default: []].append(i) }
            if let parent { for x in [parent.minX, parent.minY] { readers[x.index, default: []].append(i) } }
        }
        // A rate this small is the solver's rounding, not a move (its zero tolerance).
        let noise = 1e-9
        var ambiguous = [Bool](repeating: false, count: document.views.count)
        for d in directions {
            for (variable, _) in d.rates {
                for i in readers[variable.index] ?? [] where !ambiguous[i] {
                    guard let (v, parent) = frameVariables[i] else { continue }
                    let dx = d.rate(v.minX) - (parent.map { d.rate($0.minX) } ?? 0)
                    let dy = d.rate(v.minY) - (parent.map { d.rate($0.minY) } ?? 0)
                    ambiguous[i] = abs(dx) > noise || abs(dy) > noise || abs(d.rate(v.width)) > noise
                        || abs(d.rate(v.height)) > noise
                }
            }
        }
        return document.views.indices.filter { ambiguous[$0] }.map { document.views[$0].id }
    }

    /// Entries switched off: `active: false`, or a rule that switches every item off (computed;
    /// `inactive` holds the answer between edits).
    var inactiveEntries: [String] {
        var out: [String] = []
        for (e, entry) in document.constraints.enumerated() {
            let items = Int(entryStart[e])..<Int(entryStart[e + 1])
            let anyActive = items.contains { compiled[$0].active }
            if entry.active == false || (!items.isEmpty && !anyActive) { out.append(entry.id) }
        }
        return out
    }
}

/// What a view's frame reads: its variables and those of the views its x and y are measured
/// from, as variable indices (`Variable.index`), -1 for none. 32 bytes a view, so that a resize,
/// which refreshes every frame, reads half a cache line per view from one array, not a
/// 20-byte and a 40-byte record from two (optional `ViewVariables`).
struct FrameSlot: Sendable {
    /// The view's own variables (all -1 when it has none).
    var minX: Int32 = -1, minY: Int32 = -1, width: Int32 = -1, height: Int32 = -1
    /// The parent's minX and minY (-1 for a root).
    var parentX: Int32 = -1, parentY: Int32 = -1
    /// The root's minX and minY (-1 for a root: its frame is as given).
    var rootX: Int32 = -1, rootY: Int32 = -1

    init(view: ViewVariables?, parent: ViewVariables?, root: ViewVariables?) {
        if let v = view { (minX, minY, width, height) = (v.minX.index, v.minY.index, v.width.index, v.height.index) }
        if let p = parent { (parentX, parentY) = (p.minX.index, p.minY.index) }
        if let r = root { (rootX, rootY) = (r.minX.index, r.minY.index) }
    }
}

extension LayoutSystem {
    /// Builds `viewVariables` and `frameSlots` for the current document (after compilation made
    /// the variables).
    mutating func indexFrames() {
        let views = document.views
        let n = views.count
        // Each view's root position, memoised; -1 = unknown yet. Valid documents have no cycles;
        // a walk is still bounded by the number of views.
        var rootIndex = [Int](repeating: -1, count: n)
        var path: [Int] = []
        for start in 0..<n where rootIndex[start] < 0 {
            path.removeAll(keepingCapacity: true)
            var current = start
            var root = start
            while true {
                if rootIndex[current] >= 0 { root = rootIndex[current]; break }
                path.append(current)
                guard let p = views[current].parent, let pi = viewIndex[p], path.count <= n else {
                    root = current
                    break
                }
                current = pi
            }
            for v in path { rootIndex[v] = root }
        }
        frameSlots.removeAll(keepingCapacity: true)
        frameSlots.reserveCapacity(n)
        viewVariables = views.map { variables[$0.id] }
        for i in 0..<n {
            let view = views[i]
            let parent = view.parent.flatMap { variables[$0] }
            let root = rootIndex[i] == i ? nil : variables[views[rootIndex[i]].id]
            frameSlots.append(FrameSlot(view: viewVariables[i], parent: parent, root: root))
        }
        indexMovedFrames()
    }
}
