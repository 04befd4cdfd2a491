import LayoutEngine

extension SessionState {
    /// Brings `frames` up to date with `system` and returns the positions (ascending) in
    /// `frames` of the ones that changed (new views included). When the views are the same as
    /// before (the usual edit), it looks only at the frames the edits since the last refresh may
    /// have moved (`LayoutSystem.movedFramePositions`; every frame when that is not known) and
    /// updates them in place.
    ///
    /// A constant change moves a handful of views whatever the document's size: computing every
    /// frame to find them made a PATCH of a 1,000-view session cost O(views). Positions, not
    /// (id, frame) pairs: the answer is written from `frames` by position
    /// (`ResultEncoder.FrameSelection`), without a second list to fill and release.
    mutating func refreshFrames() -> [Int] {
        defer { system.clearMovedFrames() }
        if framesViewList !== system.viewList {
            let after = system.frames(.relative)
            defer {
                frames = after
                frameKeys = ResultEncoder.FrameKeys(after)
                framesViewList = system.viewList
            }
            return Self.changedPositions(from: frames, to: after)
        }
        let moved = system.movedFramePositions()
        return system.updateRelativeFrames(&frames, at: moved)
    }

    /// Positions in `after` of the frames that are new or differ from `before`, ascending.
    static func changedPositions(from before: [(id: String, frame: Frame)],
                                 to after: [(id: String, frame: Frame)]) -> [Int] {
        // The usual case: the same views in the same order (compared by position, no hashing).
        if before.count == after.count {
            var out: [Int] = []
            var i = 0
            while i < after.count, before[i].id == after[i].id {
                if before[i].frame != after[i].frame { out.append(i) }
                i += 1
            }
            if i == after.count { return out }
        }
        var old = [String: Frame](minimumCapacity: before.count)
        for (id, f) in before { old[id] = f }
        return after.indices.filter { old[after[$0].id] != after[$0].frame }
    }
}
