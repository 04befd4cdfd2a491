import Storage

/// Group commit (leader/follower, as MySQL's binlog group commit): every write call queues its
/// work and waits; the first caller to find no leader active becomes the leader, takes every
/// queued write and runs them in one `BEGIN IMMEDIATE … COMMIT` (one fsync with `sync: always`,
/// one set of WAL locks and one log append otherwise), then hands each caller its own answer.
/// Callers that queue meanwhile wait and form the next batch. An uncontended write is its own
/// leader on its own thread: no hand-off, no wait, the same statements as without batching.
extension SQLiteSessionStorage {
    /// Queues `op` and waits for its answer; when no one is writing, this caller leads: it takes
    /// every queued write and commits them together.
    func submit(_ op: WriteOp) throws(StorageError) -> WriteAnswer {
        let ticket = Ticket(op)
        let batch: [Ticket]? = lock.withLock {
            if coordination.closed { return nil }
            coordination.queue.append(ticket)
            while ticket.answer == nil && coordination.writerBusy { lock.wait() }
            if ticket.answer != nil { return [] }
            coordination.writerBusy = true
            defer { coordination.queue.removeAll(keepingCapacity: true) }
            return coordination.queue
        }
        guard let batch else { throw StorageError.unavailable("the SQLite store \(path) is closed") }
        if !batch.isEmpty { commit(batch) }
        return try ticket.answer!.get()
    }

    /// Writes queued for the next leader (tests wait on it to know a batch is formed).
    var queuedWrites: Int { lock.withLock { coordination.queue.count } }

    /// Runs `body` on the write connection with no write in progress (maintenance: checkpoints,
    /// vacuum), outside any transaction. Writes submitted meanwhile queue and form one batch.
    func exclusive<R>(_ body: (SQLiteConnection) throws(StorageError) -> R) throws(StorageError) -> R {
        let open: Bool = lock.withLock {
            while coordination.writerBusy { lock.wait() }
            if coordination.closed { return false }
            coordination.writerBusy = true
            return true
        }
        guard open else { throw StorageError.unavailable("the SQLite store \(path) is closed") }
        defer {
            lock.withLock {
                coordination.writerBusy = false
                lock.broadcast()
            }
        }
        return try body(writer)
    }

    /// The leader's work: one transaction for the batch.
    ///
    /// - A fenced write (`conflict`) fails alone and writes nothing: its fence is checked before
    ///   any of its statements.
    /// - In a batch of several, each write runs inside a SAVEPOINT, so a write that fails for a
    ///   reason of its own (a statement-level error: a constraint, a value too big) is undone
    ///   alone and answered with its error while the others commit. A batch of one has no savepoint (its
    ///   failure is the transaction's): an uncontended write costs what it did before batching.
    /// - When SQLite has rolled the whole transaction back itself (it does on a full disk or an
    ///   I/O error, whichever write met it), or COMMIT fails, or the file was removed, every write of the batch fails with that error: nothing is
    ///   acknowledged that was not committed, and each caller rolls its session back as for any
    ///   failed write.
    private func commit(_ batch: [Ticket]) {
        let now = clock()
        var answers: [Result<WriteAnswer, StorageError>] = []
        answers.reserveCapacity(batch.count)
        var failure: StorageError? = nil
        let isolated = batch.count > 1
        do throws(StorageError) {
            try checkFileIsStillThere()
            // Prepared once (`execute` would parse them at every commit).
            try writer.statement("BEGIN IMMEDIATE").run()
            for t in batch {
                if isolated { try writer.statement("SAVEPOINT one_write").run() }
                do throws(StorageError) {
                    answers.append(.success(try apply(t.op, now: now)))
                } catch {
                    try isolate(error, undo: isolated)
                    answers.append(.failure(error))
                }
                if isolated { try writer.statement("RELEASE one_write").run() }
            }
            try writer.statement("COMMIT").run()
        } catch {
            writer.rollbackIfNeeded()
            // What this transaction's writes told the leader's memory was rolled back with them.
            written.forgetAll()
            failure = error
        }
        // Answers are handed over under the lock: the waiting callers read them under it.
        lock.withLock {
            if let failure {
                for t in batch { t.answer = .failure(failure) }
                coordination.statistics.failedCommits += 1
            } else {
                for (t, a) in zip(batch, answers) { t.answer = a }
                coordination.statistics.commits += 1
                let acknowledged = answers.reduce(0) { n, a in if case .success = a { n + 1 } else { n } }
                coordination.statistics.writes += acknowledged
                coordination.statistics.refusedWrites += batch.count - acknowledged
                coordination.statistics.largestBatch = max(coordination.statistics.largestBatch, batch.count)
                if sync == .always { coordination.statistics.syncs += 1 }
            }
            coordination.writerBusy = false
            lock.broadcast()
        }
    }

    /// Decides what a write's `error` does to the batch: returns when the write can fail alone
    /// (having undone its statements when `undo`), throws to fail the whole transaction.
    private func isolate(_ failure: StorageError, undo: Bool) throws(StorageError) {
        // The fence is checked before any statement: nothing of the write to undo.
        if case .conflict = failure { return }
        // Alone in its batch, the write's failure is the transaction's (as before batching); and
        // when SQLite has already rolled the transaction back, the batch's earlier writes are gone.
        guard undo, writer.inTransaction else { throw failure }
        do throws(StorageError) {
            try writer.statement("ROLLBACK TO one_write").run()
        } catch {
            // The connection cannot undo the write alone (its pager gave up): the batch fails.
            throw failure
        }
        // The write may have told the leader's memory of a session before it failed: the
        // file, read again inside this transaction, is the truth.
        written.forgetAll()
    }
}
