import Cassowary
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
        if abs(v) < 1e9 { r = (v * 1e9).rounded() / 1e9 }
        return r == 0 ? 0 : r
    }

    /// Frames in view order.
    public func frames(_ coordinates: Coordinates = .relative) -> [(id: String, frame: Frame)] {
        var out: [(String, Frame)] = []
        out.reserveCapacity(document.views.count)
        for view in document.views {
            out.append((view.id, frame(of: view, coordinates)))
        }
        return out
    }

    public func frame(of view: View, _ coordinates: Coordinates = .relative) -> Frame {
        guard let v = variables[view.id] else { return Frame(x: 0, y: 0, width: 0, height: 0) }
        var x = solver.value(v.minX), y = solver.value(v.minY)
        // Relative: to the parent. Absolute: to the view's root (spec section 6); a root: as given.
        let origin = coordinates == .relative ? view.parent : rootOf[view.id]
        if let o = origin, o != view.id, let ov = variables[o] {
            x -= solver.value(ov.minX)
            y -= solver.value(ov.minY)
        }
        return Frame(x: Self.clean(x), y: Self.clean(y), width: Self.clean(solver.value(v.width)),
                     height: Self.clean(solver.value(v.height)))
    }

    public var diagnostics: Diagnostics {
        var d = Diagnostics()
        d.broken = brokenConstraints
        d.ambiguous = ambiguousViews
        d.inactive = inactiveEntries
        return d
    }

    /// Broken entries in processing order, each with the ids it conflicts with.
    var brokenConstraints: [BrokenConstraint] {
        let broken = solver.brokenConstraints
        if broken.isEmpty { return [] }
        var byOwner: [String: (order: Int, conflicts: [String])] = [:]
        for (id, conflicts) in broken {
            guard let key = keyOfConstraint[id.index], let i = position[key] else { continue }
            let owner = compiled[i].ownerID
            var entry = byOwner[owner] ?? (i, [])
            entry.order = min(entry.order, i)
            for c in conflicts {
                guard let k = keyOfConstraint[c.index], let ci = position[k] else { continue }
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

    /// Views whose returned frame values could differ in another optimal solution.
    var ambiguousViews: [String] {
        let directions = solver.freeDirections()
        if directions.isEmpty { return [] }
        var out: [String] = []
        for view in document.views {
            guard let v = variables[view.id] else { continue }
            let parent = view.parent.flatMap { variables[$0] }
            let moves = directions.contains { d in
                let dx = d.rate(v.minX) - (parent.map { d.rate($0.minX) } ?? 0)
                let dy = d.rate(v.minY) - (parent.map { d.rate($0.minY) } ?? 0)
                return abs(dx) > 1e-9 || abs(dy) > 1e-9 || abs(d.rate(v.width)) > 1e-9 || abs(d.rate(v.height)) > 1e-9
            }
            if moves { out.append(view.id) }
        }
        return out
    }

    /// Entries switched off: `active: false`, or a rule that switches every item off.
    var inactiveEntries: [String] {
        var out: [String] = []
        var index = 0
        for entry in document.constraints {
            let n = entry.items.count
            var anyActive = false
            for k in 0..<n where compiled[position[.entry(entry.id, k)] ?? index].active { anyActive = true }
            if entry.active == false || (n > 0 && !anyActive) { out.append(entry.id) }
            index += n
        }
        return out
    }
}
