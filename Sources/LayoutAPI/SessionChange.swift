import LayoutEngine

/// One change of a live session, decided under its lock against its current state and ready for
/// `SessionState.commit`: what the engine does, how the canonical document changes, and what a
/// store logs to replay it.
struct SessionChange {
    /// How the session's system reaches the new document.
    enum Solve {
        /// PATCH: the session's system takes the edit at the commit.
        case edit(LayoutEdit)
        /// PUT: the state being committed was made from the new document, solved before the lock
        /// was taken (a session's lock is not held for a whole solve, and a dormant session is
        /// not woken only to be dropped). Nothing is left to solve.
        case solved
    }

    /// How the canonical document changes.
    enum Canonical {
        /// Members get new canonical text (what `JSONWriter` writes for their new value).
        case members([(group: CanonicalDocument.Group, position: Int, text: [UInt8])])
        /// The whole document.
        case document(CanonicalDocument)
    }

    var solve: Solve
    var canonical: Canonical
    /// What a store logs for this change (`CommitRecord.change`).
    var logged: CommitRecord.Change
}

/// What the session store appends for one commit (`SessionRepository.write`): enough to bring a session at the previous
/// revision to this one (the merge patch is applied to the previous canonical document; a document
/// replaces it) and to solve it as the session has it (the `delegate` states it remembered, which
/// the document alone does not give: see `DormantSession`).
struct CommitRecord {
    enum Change {
        /// The body of a PATCH, as received.
        case mergePatch([UInt8])
        /// The new canonical document (PUT of an existing session).
        case document(CanonicalDocument)
    }

    var change: Change
    /// The revision the change makes.
    var revision: Int
    /// `LayoutSystem.rememberedDelegates` after the change.
    var delegates: [String: Bool]
}
