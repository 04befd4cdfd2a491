import Storage

/// A write as queued for the leader (see `SQLiteSessionStorage`).
enum WriteOp {
    case create(id: String, revision: Int, document: [UInt8], delegates: [UInt8])
    case replace(id: String, generation: UInt64, revision: Int, document: [UInt8], delegates: [UInt8], base: UInt64?)
    case append(id: String, generation: UInt64, revision: Int, patch: [UInt8], delegates: [UInt8]?, base: UInt64?)
    case snapshot(id: String, generation: UInt64, revision: Int, document: [UInt8], base: UInt64?)
    case expireOne(id: String, generation: UInt64, before: Double)
    case delete(id: String, generation: UInt64)
    case touch(id: String, generation: UInt64, time: Double)
    case touchMany([SessionUse])
    /// Deletes the sessions among `candidates` (read beforehand) still last used before `time`.
    case expire(candidates: [(key: Int, id: String)], before: Double)
    /// Writes the `probed_at` row of `meta` (`probe(write: true)`, readiness).
    case probe
}

enum WriteAnswer {
    case done
    case generation(UInt64)
    case appended(AppendResult)
    case expired([SessionKey])
    case expiredOne(Bool)
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
                        delegates: [String: Bool], base: UInt64?) throws(StorageError) {
        _ = try submit(.replace(id: id, generation: generation, revision: revision, document: document,
                                delegates: DelegateCoding.encode(delegates), base: base))
    }

    @discardableResult
    public func appendPatch(id: String, generation: UInt64, revision: Int, patch: [UInt8],
                            delegates: [String: Bool]?, base: UInt64?) throws(StorageError) -> AppendResult {
        guard case .appended(let r) = try submit(.append(id: id, generation: generation, revision: revision, patch: patch,
                                                         delegates: delegates.map(DelegateCoding.encode), base: base)) else {
            preconditionFailure("append answers an AppendResult")
        }
        return r
    }

    public func saveSnapshot(id: String, generation: UInt64, revision: Int, document: [UInt8], base: UInt64?) throws(StorageError) {
        _ = try submit(.snapshot(id: id, generation: generation, revision: revision, document: document, base: base))
    }

    public func expire(id: String, generation: UInt64, before time: Double) throws(StorageError) -> Bool {
        guard case .expiredOne(let expired) = try submit(.expireOne(id: id, generation: generation, before: time)) else {
            preconditionFailure("expireOne answers whether it expired")
        }
        return expired
    }

    public func delete(id: String, generation: UInt64) throws(StorageError) {
        _ = try submit(.delete(id: id, generation: generation))
    }

    public func touch(id: String, generation: UInt64, at time: Double) throws(StorageError) {
        _ = try submit(.touch(id: id, generation: generation, time: time))
    }

    /// What is stored for `id` (`WrittenSession`): from what the leader remembers of its own
    /// writes, else read from the file (its revision and patches' count and size from the
    /// patches themselves: the session's row is not rewritten by every append).
    private func stored(_ id: String) throws(StorageError) -> WrittenSession? {
        if let known = written.sessions[id] { return known }
        let s = try writer.statement("""
            SELECT key, generation, snapshot_revision, snapshot_bytes, last_used, write_id FROM sessions WHERE id = ?1
            """)
        defer { s.reset() }
        s.bind(1, id)
        guard try s.step() else { return nil }
        var session = WrittenSession(key: s.int(0), generation: s.uint64(1), revision: s.int(2), snapshotBytes: s.int(3),
                                     patchCount: 0, patchBytes: 0, rowWritten: s.double(4), lastWrite: s.double(4),
                                     writeID: s.uint64(5))
        let p = try writer.statement("""
            SELECT count(*), coalesce(sum(length(patch)), 0), max(revision) FROM patches WHERE key = ?1
            """)
        defer { p.reset() }
        p.bind(1, session.key)
        if try p.step(), p.int(0) > 0 {
            session.patchCount = p.int(0)
            session.patchBytes = p.int(1)
            session.revision = p.int(2)
            session.writeID = try lastPatchWriteID(key: session.key)
        }
        written.remember(id, session)
        return session
    }

    /// Applies `op` on the write connection inside the leader's transaction (fence first).
    func apply(_ op: WriteOp, now: Double) throws(StorageError) -> WriteAnswer {
        let w = writer
        switch op {
        case .create(let id, let revision, let document, let delegates):
            try Fence.create(id, stored: try stored(id)?.fenced)
            let g = try w.statement("UPDATE meta SET value = value + 1 WHERE name = 'last_generation' RETURNING value")
            defer { g.reset() }
            guard try g.step() else { throw StorageError.corrupt(path: path, detail: "the table 'meta' has no last_generation") }
            let generation = g.uint64(0)
            g.reset()
            let s = try w.statement("""
                INSERT INTO sessions (id, generation, revision, snapshot_revision, snapshot_bytes, patch_count,
                                      patch_bytes, delegates, last_used, write_id)
                VALUES (?1, ?2, ?3, ?3, ?4, 0, 0, ?5, ?6, ?7)
                """)
            let writeID = WriteChain.created(document)
            s.bind(1, id); s.bind(2, generation); s.bind(3, revision); s.bind(4, document.count)
            s.bind(5, delegates); s.bind(6, now); s.bind(7, writeID)
            try s.run()
            let key = Int(sqlite3LastInsertRowID(w))
            try writeSnapshot(key: key, document)
            written.remember(id, WrittenSession(key: key, generation: generation, revision: revision,
                                                snapshotBytes: document.count, patchCount: 0, patchBytes: 0,
                                                rowWritten: now, lastWrite: now, writeID: writeID))
            return .generation(generation)

        case .replace(let id, let generation, let revision, let document, let delegates, let base):
            let st = try stored(id)
            try Fence.next(id, generation: generation, revision: revision, base: base, stored: st?.fenced)
            let writeID = WriteChain.replaced(after: st!.writeID, document)
            let s = try w.statement("""
                UPDATE sessions SET revision = ?2, snapshot_revision = ?2, snapshot_bytes = ?3, patch_count = 0,
                                    patch_bytes = 0, delegates = ?4, last_used = ?5, write_id = ?6 WHERE key = ?1
                """)
            s.bind(1, st!.key); s.bind(2, revision); s.bind(3, document.count); s.bind(4, delegates); s.bind(5, now)
            s.bind(6, writeID)
            try s.run()
            try writeSnapshot(key: st!.key, document)
            try deletePatches(key: st!.key)
            written.remember(id, WrittenSession(key: st!.key, generation: generation, revision: revision,
                                                snapshotBytes: document.count, patchCount: 0, patchBytes: 0,
                                                rowWritten: now, lastWrite: now, writeID: writeID))
            return .done

        case .append(let id, let generation, let revision, let patch, let delegates, let base):
            let st = try stored(id)
            try Fence.next(id, generation: generation, revision: revision, base: base, stored: st?.fenced)
            var session = st!
            let writeID = WriteChain.patched(after: session.writeID, patch)
            let p = try w.statement("INSERT INTO patches (key, revision, patch, write_id) VALUES (?1, ?2, ?3, ?4)")
            p.bind(1, session.key); p.bind(2, revision); p.bind(3, patch); p.bind(4, writeID)
            try p.run()
            session.revision = revision
            session.writeID = writeID
            session.patchCount += 1
            session.patchBytes += patch.count
            session.lastWrite = now
            // The session's row (another page to write) only when its delegate memory changed, or
            // to keep its last use within `rowRefreshSeconds` of the truth (idle expiry).
            if delegates != nil || now - session.rowWritten >= Self.rowRefreshSeconds {
                let s = try w.statement("""
                    UPDATE sessions SET revision = ?2, patch_count = ?3, patch_bytes = ?4,
                                        delegates = coalesce(?5, delegates), last_used = ?6 WHERE key = ?1
                    """)
                s.bind(1, session.key); s.bind(2, revision); s.bind(3, session.patchCount); s.bind(4, session.patchBytes)
                s.bind(5, delegates); s.bind(6, now)
                try s.run()
                session.rowWritten = now
            }
            written.remember(id, session)
            return .appended(AppendResult(snapshotDue: policy.isDue(patchCount: session.patchCount,
                                                                    patchBytes: session.patchBytes,
                                                                    snapshotBytes: session.snapshotBytes)))

        case .snapshot(let id, let generation, let revision, let document, let base):
            let st = try stored(id)
            try Fence.current(id, generation: generation, revision: revision, base: base, stored: st?.fenced)
            // The row takes the write id of the last patch it folds in.
            let s = try w.statement("""
                UPDATE sessions SET revision = ?2, snapshot_revision = ?2, snapshot_bytes = ?3, patch_count = 0,
                                    patch_bytes = 0, last_used = max(last_used, ?4), write_id = ?5 WHERE key = ?1
                """)
            s.bind(1, st!.key); s.bind(2, revision); s.bind(3, document.count); s.bind(4, st!.lastWrite)
            s.bind(5, st!.writeID)
            try s.run()
            try writeSnapshot(key: st!.key, document)
            try deletePatches(key: st!.key)
            var session = st!
            (session.snapshotBytes, session.patchCount, session.patchBytes) = (document.count, 0, 0)
            written.remember(id, session)
            return .done

        case .delete(let id, let generation):
            let st = try stored(id)
            try Fence.generation(id, generation, stored: st?.fenced)
            for sql in ["DELETE FROM sessions WHERE key = ?1", "DELETE FROM snapshots WHERE key = ?1"] {
                let s = try w.statement(sql)
                s.bind(1, st!.key)
                try s.run()
            }
            try deletePatches(key: st!.key)
            written.forget(id)
            return .done

        case .touch(let id, let generation, let time):
            let st = try stored(id)
            try Fence.generation(id, generation, stored: st?.fenced)
            let s = try w.statement("UPDATE sessions SET last_used = ?2 WHERE key = ?1")
            s.bind(1, st!.key); s.bind(2, time)
            try s.run()
            return .done

        case .touchMany(let uses):
            let s = try w.statement("UPDATE sessions SET last_used = max(last_used, ?3) WHERE id = ?1 AND generation = ?2")
            for use in uses {
                s.bind(1, use.id); s.bind(2, use.generation); s.bind(3, use.time)
                try s.run()
            }
            return .done

        case .expire(let candidates, let time):
            return .expired(try deleteIdle(candidates, before: time))

        case .expireOne(let id, let generation, let time):
            guard let st = try stored(id), st.generation == generation else { return .expiredOne(false) }
            return .expiredOne(!(try deleteIdle([(st.key, id)], before: time)).isEmpty)

        case .probe:
            let s = try w.statement("""
                INSERT INTO meta (name, value) VALUES ('probed_at', ?1) ON CONFLICT (name) DO UPDATE SET value = excluded.value
                """)
            s.bind(1, Int(now))
            try s.run()
            return .done
        }
    }

    /// The write id of the session's last stored patch (it has one).
    private func lastPatchWriteID(key: Int) throws(StorageError) -> UInt64 {
        let s = try writer.statement("SELECT write_id FROM patches WHERE key = ?1 ORDER BY revision DESC LIMIT 1")
        defer { s.reset() }
        s.bind(1, key)
        return try s.step() ? s.uint64(0) : 0
    }

    private func writeSnapshot(key: Int, _ document: [UInt8]) throws(StorageError) {
        let s = try writer.statement("INSERT OR REPLACE INTO snapshots (key, document) VALUES (?1, ?2)")
        s.bind(1, key); s.bind(2, document)
        try s.run()
    }

    func deletePatches(key: Int) throws(StorageError) {
        let s = try writer.statement("DELETE FROM patches WHERE key = ?1")
        s.bind(1, key)
        try s.run()
    }
}
