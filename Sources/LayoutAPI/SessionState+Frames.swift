import LayoutEngine

extension SessionState {
    /// Brings `frames` up to date with `system` and returns the frames that changed (new views
    /// included), in view order. When the views are the same as before (the usual edit), it
    /// looks only at the frames the edits since the last refresh may have moved
    /// (`LayoutSystem.movedFramePositions`; every frame when that is not known), updates them in
    /// place, and allocates the answer once.
    ///
    /// A constant change moves a handful of views whatever the document's size: computing every
    /// frame to find them made a PATCH of a 1,000-view session cost O(views). Appending to an
    /// empty array instead of counting first reallocated it at every doubling: several mallocs per
    /// PATCH, and for an edit that moves most views (a root resize) the larger ones make glibc
    /// consolidate its free lists.
    mutating func refreshFrames() -> [(id: String, frame: Frame)] {
        defer { system.clearMovedFrames() }
        let views = system.document.views
        // The same views, compared by position (the same strings: by identity first).
        var same = frames.count == views.count
        var k = 0
        while same && k < views.count {
            same = frames[k].id == views[k].id
            k += 1
        }
        if !same {
            let after = system.frames(.relative)
            defer { frames = after }
            return LayoutAPI.changedFrames(from: frames, to: after)
        }
        let moved = system.movedFramePositions()
        // Worked on outside `self` (moved out, so still uniquely referenced): a closure that
        // captured `self` would copy the frames on the first write.
        var frames: [(id: String, frame: Frame)] = []
        swap(&frames, &self.frames)
        defer { swap(&frames, &self.frames) }
        let system = self.system
        if let moved {
            var changed: [Int] = []
            system.forEachFrame(.relative, at: moved) { i, f in
                if f != frames[i].frame {
                    frames[i].frame = f
                    changed.append(i)
                }
            }
            return changed.map { frames[$0] }
        }
        return withUnsafeTemporaryAllocation(of: Bool.self, capacity: views.count) { isChanged in
            var count = 0
            system.forEachFrame(.relative) { i, f in
                isChanged[i] = f != frames[i].frame
                if isChanged[i] {
                    frames[i].frame = f
                    count += 1
                }
            }
            var changed: [(id: String, frame: Frame)] = []
            changed.reserveCapacity(count)
            for i in views.indices where isChanged[i] { changed.append(frames[i]) }
            return changed
        }
    }
}
