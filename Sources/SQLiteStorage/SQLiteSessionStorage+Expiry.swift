import Storage

/// Idle expiry across restarts (`SessionStorage.touch(_:)`, `expire(before:)`).
extension SQLiteSessionStorage {
    public func touch(_ uses: [SessionUse]) throws(StorageError) {
        guard !uses.isEmpty else { return }
        _ = try submit(.touchMany(uses))
    }

    /// The candidates are found on the read connection (a scan of the sessions' rows, which would
    /// otherwise hold up every write for its length); the write deletes those still idle.
    public func expire(before time: Double) throws(StorageError) -> [SessionKey] {
        let candidates = try read { c throws(StorageError) -> [(key: Int, id: String)] in
            let s = try c.statement("SELECT key, id FROM sessions WHERE last_used < ?1")
            defer { s.reset() }
            s.bind(1, time)
            var keys: [(key: Int, id: String)] = []
            while try s.step() { keys.append((s.int(0), s.text(1))) }
            return keys
        }
        guard !candidates.isEmpty else { return [] }
        guard case .expired(let keys) = try submit(.expire(candidates: candidates, before: time)) else {
            preconditionFailure("expire answers the expired sessions")
        }
        return keys
    }

    /// The leader's part of `expire`: deletes each candidate whose row still says it was last used
    /// before `time`, and answers those deleted.
    func deleteIdle(_ candidates: [(key: Int, id: String)], before time: Double) throws(StorageError) -> [SessionKey] {
        let s = try writer.statement("DELETE FROM sessions WHERE key = ?1 AND last_used < ?2 RETURNING id, generation")
        var expired: [SessionKey] = []
        for (key, id) in candidates {
            // Its row's last use may lag its last append by up to `rowRefreshSeconds`.
            if let known = written.sessions[id], known.key == key, known.lastWrite >= time { continue }
            s.bind(1, key); s.bind(2, time)
            let deleted = try s.step()
            if deleted { expired.append(SessionKey(id: s.text(0), generation: s.uint64(1))) }
            s.reset()
            guard deleted else { continue }
            written.forget(id)
            let n = try writer.statement("DELETE FROM snapshots WHERE key = ?1")
            n.bind(1, key)
            try n.run()
            try deletePatches(key: key)
        }
        return expired
    }
}
