import Storage

/// A write as queued for the leader (see `SQLiteSessionStorage`).
enum WriteOp {
    case create(id: String, revision: Int, document: [UInt8], delegates: [UInt8])
    case replace(id: String, generation: UInt64, revision: Int, document: [UInt8], delegates: [UInt8])
    case append(id: String, generation: UInt64, revision: Int, patch: [UInt8], delegates: [UInt8]?)
    case snapshot(id: String, generation: UInt64, revision: Int, document: [UInt8])
    case delete(id: String, generation: UInt64)
    case touch(id: String, generation: UInt64, time: Double)
}

enum WriteAnswer {
    case done
    case generation(UInt64)
    case appended(AppendResult)
}

extension SQLiteSessionStorage {
    public func create(id: String, revision: Int, document: [UInt8], delegates: [String: Bool]) throws(StorageError) -> UInt64 {
        guard case .generation(let g) = try submit(.create(id: id, revision: revision, document: document,
                                                           delegates: DelegateCoding.encode(delegates))) else {
            preconditionFailure("create answers a generation")
        }
        return g
    }

    public func replace(id: String, generation: UInt64, revision: Int, document: [UInt8],
                        delegates: [String: Bool]) throws(StorageError) {
        _ = try submit(.replace(id: id, generation: generation, revision: revision, document: document,
                                delegates: DelegateCoding.encode(delegates)))
    }

    @discardableResult
    public func appendPatch(id: String, generation: UInt64, revision: Int, patch: [UInt8],
                            delegates: [String: Bool]?) throws(StorageError) -> AppendResult {
        guard case .appended(let r) = try submit(.append(id: id, generation: generation, revision: revision, patch: patch,
                                                         delegates: delegates.map(DelegateCoding.encode))) else {
            preconditionFailure("append answers an AppendResult")
        }
        return r
    }

    public func saveSnapshot(id: String, generation: UInt64, revision: Int, document: [UInt8]) throws(StorageError) {
        _ = try submit(.snapshot(id: id, generation: generation, revision: revision, document: document))
    }

    public func delete(id: String, generation: UInt64) throws(StorageError) {
        _ = try submit(.delete(id: id, generation: generation))
    }

    public func touch(id: String, generation: UInt64, at time: Double) throws(StorageError) {
        _ = try submit(.touch(id: id, generation: generation, time: time))
    }

    // MARK: group commit

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

    /// Runs `body` on the write connection with no write in progress (maintenance: checkpoints,
    /// vacuum), outside any transaction.
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

    /// The leader's work: one transaction for the batch. A fenced write fails alone (nothing of it
    /// was written: the fence is checked first); any other failure rolls the whole transaction
    /// back and fails every write of the batch, so nothing is acknowledged that was not committed.
    private func commit(_ batch: [Ticket]) {
        let now = clock()
        var answers: [Result<WriteAnswer, StorageError>] = []
        answers.reserveCapacity(batch.count)
        var failure: StorageError? = nil
        do throws(StorageError) {
            try checkFileIsStillThere()
            try writer.execute("BEGIN IMMEDIATE")
            for t in batch {
                do throws(StorageError) {
                    answers.append(.success(try apply(t.op, now: now)))
                } catch {
                    guard case .conflict = error else { throw error }
                    answers.append(.failure(error))
                }
            }
            try writer.execute("COMMIT")
        } catch {
            writer.rollbackIfNeeded()
            failure = error
        }
        // Answers are handed over under the lock: the waiting callers read them under it.
        lock.withLock {
            if let failure {
                for t in batch { t.answer = .failure(failure) }
            } else {
                for (t, a) in zip(batch, answers) { t.answer = a }
                coordination.statistics.commits += 1
                coordination.statistics.writes += batch.count
                coordination.statistics.largestBatch = max(coordination.statistics.largestBatch, batch.count)
                if sync == .always { coordination.statistics.syncs += 1 }
            }
            coordination.writerBusy = false
            lock.broadcast()
        }
    }

    /// What is stored for `id`: its key, generation, revision, snapshot size and patches' count and size.
    private func stored(_ id: String) throws(StorageError)
        -> (key: Int, generation: UInt64, revision: Int, snapshotBytes: Int, patchCount: Int, patchBytes: Int)? {
        let s = try writer.statement("""
            SELECT key, generation, revision, snapshot_bytes, patch_count, patch_bytes FROM sessions WHERE id = ?1
            """)
        defer { s.reset() }
        s.bind(1, id)
        guard try s.step() else { return nil }
        return (s.int(0), s.uint64(1), s.int(2), s.int(3), s.int(4), s.int(5))
    }

    private func apply(_ op: WriteOp, now: Double) throws(StorageError) -> WriteAnswer {
        let w = writer
        switch op {
        case .create(let id, let revision, let document, let delegates):
            try Fence.create(id, stored: try stored(id).map { ($0.generation, $0.revision) })
            let g = try w.statement("UPDATE meta SET value = value + 1 WHERE name = 'last_generation' RETURNING value")
            defer { g.reset() }
            guard try g.step() else { throw StorageError.corrupt(path: path, detail: "the table 'meta' has no last_generation") }
            let generation = g.uint64(0)
            g.reset()
            let s = try w.statement("""
                INSERT INTO sessions (id, generation, revision, snapshot_revision, snapshot_bytes, patch_count,
                                      patch_bytes, delegates, last_used)
                VALUES (?1, ?2, ?3, ?3, ?4, 0, 0, ?5, ?6)
                """)
            s.bind(1, id); s.bind(2, generation); s.bind(3, revision); s.bind(4, document.count)
            s.bind(5, delegates); s.bind(6, now)
            try s.run()
            try writeSnapshot(key: Int(sqlite3LastInsertRowID(w)), document)
            return .generation(generation)

        case .replace(let id, let generation, let revision, let document, let delegates):
            let st = try stored(id)
            try Fence.next(id, generation: generation, revision: revision, stored: st.map { ($0.generation, $0.revision) })
            let s = try w.statement("""
                UPDATE sessions SET revision = ?2, snapshot_revision = ?2, snapshot_bytes = ?3, patch_count = 0,
                                    patch_bytes = 0, delegates = ?4, last_used = ?5 WHERE key = ?1
                """)
            s.bind(1, st!.key); s.bind(2, revision); s.bind(3, document.count); s.bind(4, delegates); s.bind(5, now)
            try s.run()
            try writeSnapshot(key: st!.key, document)
            try deletePatches(key: st!.key)
            return .done

        case .append(let id, let generation, let revision, let patch, let delegates):
            let st = try stored(id)
            try Fence.next(id, generation: generation, revision: revision, stored: st.map { ($0.generation, $0.revision) })
            let p = try w.statement("INSERT INTO patches (key, revision, patch) VALUES (?1, ?2, ?3)")
            p.bind(1, st!.key); p.bind(2, revision); p.bind(3, patch)
            try p.run()
            let s = try w.statement("""
                UPDATE sessions SET revision = ?2, patch_count = patch_count + 1, patch_bytes = patch_bytes + ?3,
                                    delegates = coalesce(?4, delegates), last_used = ?5 WHERE key = ?1
                """)
            s.bind(1, st!.key); s.bind(2, revision); s.bind(3, patch.count); s.bind(4, delegates); s.bind(5, now)
            try s.run()
            return .appended(AppendResult(snapshotDue: policy.isDue(patchCount: st!.patchCount + 1,
                                                                    patchBytes: st!.patchBytes + patch.count,
                                                                    snapshotBytes: st!.snapshotBytes)))

        case .snapshot(let id, let generation, let revision, let document):
            let st = try stored(id)
            try Fence.current(id, generation: generation, revision: revision, stored: st.map { ($0.generation, $0.revision) })
            let s = try w.statement("""
                UPDATE sessions SET snapshot_revision = revision, snapshot_bytes = ?2, patch_count = 0, patch_bytes = 0
                WHERE key = ?1
                """)
            s.bind(1, st!.key); s.bind(2, document.count)
            try s.run()
            try writeSnapshot(key: st!.key, document)
            try deletePatches(key: st!.key)
            return .done

        case .delete(let id, let generation):
            let st = try stored(id)
            try Fence.generation(id, generation, stored: st.map { ($0.generation, $0.revision) })
            for sql in ["DELETE FROM sessions WHERE key = ?1", "DELETE FROM snapshots WHERE key = ?1"] {
                let s = try w.statement(sql)
                s.bind(1, st!.key)
                try s.run()
            }
            try deletePatches(key: st!.key)
            return .done

        case .touch(let id, let generation, let time):
            let st = try stored(id)
            try Fence.generation(id, generation, stored: st.map { ($0.generation, $0.revision) })
            let s = try w.statement("UPDATE sessions SET last_used = ?2 WHERE key = ?1")
            s.bind(1, st!.key); s.bind(2, time)
            try s.run()
            return .done
        }
    }

    private func writeSnapshot(key: Int, _ document: [UInt8]) throws(StorageError) {
        let s = try writer.statement("INSERT OR REPLACE INTO snapshots (key, document) VALUES (?1, ?2)")
        s.bind(1, key); s.bind(2, document)
        try s.run()
    }

    private func deletePatches(key: Int) throws(StorageError) {
        let s = try writer.statement("DELETE FROM patches WHERE key = ?1")
        s.bind(1, key)
        try s.run()
    }
}
