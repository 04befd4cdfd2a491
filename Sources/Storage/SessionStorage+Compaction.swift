extension SessionStorage {
    /// `compact`'s step for one session, the same in every backend: its patches replayed into a
    /// new snapshot (`saveSnapshot`, a fenced write). A session without patches is left alone; one
    /// whose patches do not replay is reported in `report.failures` and left as it is; one written
    /// meanwhile (a conflict) is left to its writer, whose next snapshot folds it.
    ///
    /// A session whose records do not read back (`corrupt`: a gap in its patches, a broken record)
    /// is reported and skipped too, so that one damaged session does not stop the compaction of
    /// all the others (issue 27); only an error of the store as a whole (I/O, unavailable) stops it.
    public func foldPatches(of id: String, replay: PatchReplay, into report: inout CompactionReport) throws(StorageError) {
        let loaded: StoredSession?
        do throws(StorageError) {
            loaded = try load(id: id)
        } catch {
            guard case .corrupt(_, let detail) = error else { throw error }
            report.failures.append("session '\(id)': its records do not read back: \(detail)")
            return
        }
        guard let session = loaded, !session.patches.isEmpty else { return }
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
