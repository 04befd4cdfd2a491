import LayoutEngine

extension SessionState {
    /// What `refreshFrames()` does and answers, with the answer allocated once.
    ///
    /// The frames that changed are marked in a small temporary bitmap while `frames` is brought
    /// up to date, then copied into an array of exactly their number. Appending to an empty
    /// array instead reallocated and copied it at every doubling: several mallocs per PATCH,
    /// and for an edit that moves most views (a root resize) the larger ones make glibc
    /// consolidate its free lists.
    mutating func refreshChangedFrames() -> [(id: String, frame: Frame)] {
        let views = system.document.views
        guard frames.count == views.count else { return refreshFrames() }
        for i in views.indices where frames[i].id != views[i].id { return refreshFrames() }
        // Worked on outside `self` (moved out, so still uniquely referenced): a closure that
        // captured `self` would copy the frames on the first write.
        var frames: [(id: String, frame: Frame)] = []
        swap(&frames, &self.frames)
        defer { swap(&frames, &self.frames) }
        let system = self.system
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
