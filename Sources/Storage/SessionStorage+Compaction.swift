extension SessionStorage {
    /// `compact`'s step for one session, the same in every backend: its patches replayed into a
    /// new snapshot (`saveSnapshot`, a fenced write). A session without patches is left alone; one
    /// whose patches do not replay is reported in `report.failures` and left as it is; one written
    /// meanwhile (a conflict) is left to its writer, whose next snapshot folds it.
    public func foldPatches(of id: String, replay: PatchReplay, into report: inout CompactionReport) throws(StorageError) {
        guard let session = try load(id: id), !session.patches.isEmpty else { return }
        let document: [UInt8]
        do {
            document = try replay(session.snapshot, session.patches)
        } catch {
            report.failures.append("session '\(id)': its patches do not replay: \(error)")
            return
        }
        do throws(StorageError) {
            try saveSnapshot(id: id, generation: session.generation, revision: session.revision, document: document,
                             base: session.writeID)
            report.sessionsFolded += 1
            report.patchesFolded += session.patches.count
        } catch {
            guard case .conflict = error else { throw error }
        }
    }
}
