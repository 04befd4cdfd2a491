import Primitives
import LayoutEngine
import LayoutModel
import Storage

extension SessionState {
    /// The one place where a live session changes (PATCH, and PUT of an existing session): the
    /// change is solved, the revision bumped, the canonical document updated, the event streams
    /// told, and the answer decided. Called under the session's lock; a refusal (409 under
    /// `strict` when the change breaks a constraint) leaves the session as it was.
    ///
    /// The steps, in this order on purpose:
    /// 1. Solve. Under `strict` the edit is made on a copy (copy-on-write) that is kept only when
    ///    nothing is broken; otherwise in place, with a store too: a copy costs a copy of every
    ///    array the edit touches (measured: 107 µs on a 50-view session's PATCH, more than the
    ///    rest of the request), where a refused write, which almost never happens, costs one
    ///    fresh solve (`rollBack`).
    /// 2. **The durability seam.** Only the system has changed so far. The store (`durable`,
    ///    written by `SessionRepository.write`) appends
    ///    `CommitRecord(change: change.logged, revision: revision + 1,
    ///    delegates: system.rememberedDelegates)` here, before anything else changes and before
    ///    anything is answered or published. When that fails it answers 503 and rolls the session
    ///    back: for `.solved` (PUT) the new state is simply not installed; for `.edit` the system
    ///    is solved again from `canonical` (still the previous document) with the delegate states
    ///    remembered before the edit (take `system.rememberedDelegates` before step 1), as a
    ///    dormant session wakes (`SessionState.solve`), and `memberContext` is dropped.
    /// 3. Install: canonical document, revision, diagnostics, frames.
    /// 4. Publish to the event streams (in revision order: the lock is held).
    /// 5. Answer, in the form of the request.
    ///
    /// `durable` (nil: `store: memory`) is the session store written at step 2 for the session `id`.
    mutating func commit(_ change: SessionChange, _ options: QueryOptions, answering form: SessionAnswer.Form,
                         events: SessionEvents, timing: inout ServerTiming,
                         durable: (store: SessionRepository, id: String, limits: DocumentLimits)? = nil)
        -> Result<SessionAnswer, LayoutAPI.Failure> {
        let t0 = MonotonicTime.now
        var isEdit = false
        if case .edit = change.solve { isEdit = true }
        // What a rollback solves with, and what the store already holds (taken only with a store).
        let delegatesBefore = durable != nil && isEdit ? system.rememberedDelegates : nil
        let patchAnswer: Bool
        if case .changes = form { patchAnswer = true } else { patchAnswer = false }
        // The default answer (changed frames, relative) comes from refreshing `frames` in place;
        // changed absolute frames are found by comparing all of them before and after.
        let inPlace = patchAnswer && !options.allFrames && !options.absolute
        let absoluteBefore = patchAnswer && options.absolute && !options.allFrames ? system.frames(.absolute) : nil

        // 1. Solve.
        var stats = EditStats()
        let solvedDiagnostics: Diagnostics
        switch change.solve {
        case .edit(let edit):
            if options.strict {
                var trial = system
                stats = trial.apply(edit)
                let diagnostics = trial.refreshDiagnostics()
                if !diagnostics.broken.isEmpty {
                    return .failure(LayoutAPI.Failure(Problems.strictConflict(diagnostics.broken)))
                }
                system = trial
                solvedDiagnostics = diagnostics
            } else {
                stats = system.apply(edit)
                solvedDiagnostics = system.refreshDiagnostics()
            }
        case .solved:
            solvedDiagnostics = diagnostics
        }
        if isEdit { APIMetrics.record(stats) }

        // 2. The durability seam (see above): nothing but `system` has changed yet.
        var snapshotDue = false
        let nextWriteID: UInt64
        switch change.logged {
        case .mergePatch(let bytes): nextWriteID = WriteChain.patched(after: writeID, bytes)
        case .document(let document): nextWriteID = WriteChain.replaced(after: writeID, document.bytes)
        }
        if let durable {
            let record = CommitRecord(change: change.logged, revision: revision + 1,
                                      delegates: system.rememberedDelegates)
            do throws(StorageError) {
                snapshotDue = try durable.store.write(record, id: durable.id, generation: generation, base: writeID,
                                                      delegatesBefore: delegatesBefore)
            } catch {
                // `.solved` (PUT): the caller's new state is simply not installed.
                if let delegatesBefore { rollBack(delegates: delegatesBefore, limits: durable.limits) }
                return .failure(SessionRepository.failure(error, id: durable.id))
            }
        }

        // 3. Install.
        switch change.canonical {
        case .members(let members):
            for m in members { canonical.replace(m.group, at: m.position, text: m.text) }
        case .document(let document):
            canonical = document
            // Made from the previous document: a whole-document change may invalidate it.
            memberContext = nil
        }
        revision += 1
        writeID = nextWriteID
        diagnostics = solvedDiagnostics
        // A `.solved` state was made with its frames; an edit moved some.
        var changed: [Int] = []
        if case .edit = change.solve { changed = refreshFrames() }
        if snapshotDue, let durable {
            durable.store.saveSnapshot(id: durable.id, generation: generation, revision: revision,
                                       document: canonical.bytes, writeID: writeID)
        }

        // 4. Publish.
        events.publish(self)

        // 5. Answer.
        let answer: SessionAnswer
        switch form {
        case .session(let id, let status):
            answer = .session(id, self, options, status: status)
        case .changes:
            let frames: ResultEncoder.FrameSelection
            if inPlace {
                frames = .init(self.frames, positions: changed, keys: frameKeys)
            } else if let before = absoluteBefore {
                let after = system.frames(.absolute)
                frames = .init(after, positions: Self.changedPositions(from: before, to: after))
            } else {
                frames = SessionAnswer.allFrames(self, options)
            }
            answer = SessionAnswer(id: nil, status: 200, revision: revision, generation: generation, frames: frames,
                                   diagnostics: diagnostics, stats: stats)
        }
        // A PUT's solve was timed before the lock was taken.
        if case .edit = change.solve { timing.solve = MonotonicTime.now - t0 }
        return .success(answer)
    }
}
