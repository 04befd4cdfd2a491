import Cassowary
import LayoutModel

// Which frames an edit may have moved, so that a session refreshes those and not every view's:
// a constant change in a 1,000-view form moves a handful of views, and computing 1,000 frames to
// find them cost more than the edit.

extension LayoutSystem {
    /// Positions (ascending) of the views whose relative frame may differ from what it was at the
    /// last `clearMovedFrames()`: every view with a variable whose value the solver changed, and
    /// the children of each (a relative frame subtracts the parent's origin). A view missing from
    /// the list has the frame it had. nil when that is not known (the solver was rebuilt since,
    /// or so much moved that it stopped keeping track), or when more variables moved than there
    /// are views: then the caller reads every frame.
    /// Brings the solver's values up to date first.
    public mutating func movedFramePositions() -> [Int]? {
        solver.updateValues()
        guard let moved = solver.movedVariables(resetting: false) else { return nil }
        let n = frameSlots.count
        // More moves than views (each has four variables): a quarter or more of the layout moved,
        // and reading every frame in order costs less than listing which.
        if moved.count > n { return nil }
        guard !moved.isEmpty, n > 0, childStart.count == n + 1 else { return moved.isEmpty ? [] : nil }
        return withUnsafeTemporaryAllocation(of: Bool.self, capacity: n) { seen in
            seen.initialize(repeating: false)
            // Each moved variable's view and that view's children.
            func forEachTouched(_ body: (Int) -> Void) {
                for s in moved where Int(s) < viewOfVariable.count {
                    let p = Int(viewOfVariable[Int(s)])
                    guard p >= 0, p < n else { continue }
                    body(p)
                    for k in Int(childStart[p])..<Int(childStart[p + 1]) { body(Int(children[k])) }
                }
            }
            var marked = 0
            forEachTouched { p in
                if !seen[p] { seen[p] = true; marked += 1 }
            }
            // Read back in view order from the marks: one exactly-sized array, no sort (a list
            // grown while marking and sorted cost more than the frames it named). A few marks
            // among many views are found by sorting them instead of scanning every mark.
            var out: [Int] = []
            out.reserveCapacity(marked)
            if marked * 64 < n {
                forEachTouched { p in
                    if seen[p] { seen[p] = false; out.append(p) }
                }
                out.sort()
            } else {
                for p in 0..<n where seen[p] { out.append(p) }
            }
            return out
        }
    }

    /// Starts a new record for `movedFramePositions`: no frame has moved.
    public mutating func clearMovedFrames() {
        _ = solver.movedVariables(resetting: true)
    }

    /// Builds `viewOfVariable` and the children lists for the current document and variables.
    mutating func indexMovedFrames() {
        let views = document.views
        let n = views.count
        var owner = [Int32](repeating: -1, count: solver.statistics.symbols)
        for i in 0..<min(n, viewVariables.count) {
            guard let v = viewVariables[i] else { continue }
            for x in [v.minX, v.minY, v.width, v.height] where Int(x.index) < owner.count {
                owner[Int(x.index)] = Int32(i)
            }
        }
        viewOfVariable = owner
        var parentOf = [Int](repeating: -1, count: n)
        var start = [Int32](repeating: 0, count: n + 1)
        for i in 0..<n {
            if let p = views[i].parent, let pi = viewIndex[p] {
                parentOf[i] = pi
                start[pi + 1] += 1
            }
        }
        for i in 0..<n { start[i + 1] += start[i] }
        var fill = start
        var list = [Int32](repeating: 0, count: Int(start[n]))
        for i in 0..<n where parentOf[i] >= 0 {
            list[Int(fill[parentOf[i]])] = Int32(i)
            fill[parentOf[i]] += 1
        }
        childStart = start
        children = list
    }
}
