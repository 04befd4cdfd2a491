import JSON
import Storage

extension PostgresSessionStorage {
    public func create(id: String, revision: Int, document: [UInt8], delegates: [String: Bool]) throws(StorageError) -> UInt64 {
        let now = clock()
        return try write { c throws(StorageError) -> UInt64 in
            let rows = try c.run(SQL.create, [.text(id), .int(revision), .bytes(document),
                                              .text(Self.delegateText(delegates)), .double(now),
                                              Self.value(WriteChain.created(document)),
                                              .text(NoticeBuckets.channel(of: id))])
            guard rows.count == 1 else { throw try conflict(c, id, 0, 0) }
            return UInt64(rows.int(0, 0))
        }
    }

    public func replace(id: String, generation: UInt64, revision: Int, document: [UInt8],
                        delegates: [String: Bool], base: UInt64?) throws(StorageError) {
        let now = clock()
        try write { c throws(StorageError) in
            let base = try resolved(base, c, id)
            let writeID = WriteChain.replaced(after: base, document)
            let rows = try c.run(SQL.replace, [.text(id), .int(Int(generation)), .int(revision), .bytes(document),
                                               .text(Self.delegateText(delegates)), .double(now),
                                               Self.value(base), Self.value(writeID), .text(NoticeBuckets.channel(of: id))])
            if rows.count != 1 { throw try conflict(c, id, generation, revision - 1, base) }
        }
    }

    @discardableResult
    public func appendPatch(id: String, generation: UInt64, revision: Int, patch: [UInt8],
                            delegates: [String: Bool]?, base: UInt64?) throws(StorageError) -> AppendResult {
        let now = clock()
        return try write { c throws(StorageError) -> AppendResult in
            let base = try resolved(base, c, id)
            let writeID = WriteChain.patched(after: base, patch)
            let rows = try c.run(SQL.append, [.text(id), .int(Int(generation)), .int(revision), .bytes(patch),
                                              delegates.map { .text(Self.delegateText($0)) } ?? .null, .double(now),
                                              Self.value(base), Self.value(writeID), .text(NoticeBuckets.channel(of: id))])
            guard rows.count == 1 else { throw try conflict(c, id, generation, revision - 1, base) }
            return AppendResult(snapshotDue: policy.isDue(patchCount: rows.int(0, 0), patchBytes: rows.int(0, 1),
                                                          snapshotBytes: rows.int(0, 2)))
        }
    }

    public func saveSnapshot(id: String, generation: UInt64, revision: Int, document: [UInt8], base: UInt64?) throws(StorageError) {
        try write { c throws(StorageError) in
            let rows = try c.run(SQL.snapshot, [.text(id), .int(Int(generation)), .int(revision), .bytes(document),
                                                base.map(Self.value) ?? .null])
            if rows.count != 1 { throw try conflict(c, id, generation, revision, base) }
        }
    }

    public func delete(id: String, generation: UInt64) throws(StorageError) {
        _ = try delete(id: id, generation: generation, idleBefore: nil)
    }

    public func expire(id: String, generation: UInt64, before time: Double) throws(StorageError) -> Bool {
        try delete(id: id, generation: generation, idleBefore: time)
    }

    /// A delete, or with `idleBefore` an expiry (no row: not idle, or gone; not a conflict).
    private func delete(id: String, generation: UInt64, idleBefore: Double?) throws(StorageError) -> Bool {
        try write { c throws(StorageError) -> Bool in
            try c.execute("BEGIN")
            do throws(StorageError) {
                let rows: PostgresRows
                if let idleBefore {
                    rows = try c.run(SQL.expireSession, [.text(id), .int(Int(generation)), .double(idleBefore)])
                } else {
                    rows = try c.run(SQL.deleteSession, [.text(id), .int(Int(generation))])
                }
                guard rows.count == 1 else {
                    try c.execute("ROLLBACK")
                    if idleBefore != nil { return false }
                    throw try conflict(c, id, generation, nil)
                }
                _ = try c.run(SQL.deletePatches, [.text(id), .int(Int(generation)), .text(NoticeBuckets.channel(of: id))])
                try c.execute("COMMIT")
                return true
            } catch {
                // A live connection left in a failed transaction goes back to the pool clean; a
                // broken one is dropped by the pool.
                if c.isConnected && !c.isIdleOutsideTransaction { _ = try? c.execute("ROLLBACK") }
                throw error
            }
        }
    }

    public func touch(id: String, generation: UInt64, at time: Double) throws(StorageError) {
        try write { c throws(StorageError) in
            let rows = try c.run(SQL.touch, [.text(id), .int(Int(generation)), .double(time)])
            if rows.count != 1 { throw try conflict(c, id, generation, nil) }
        }
    }

    /// All the uses in one statement (see `SQL.touchMany`); a session deleted or made anew is
    /// skipped by the statement's own condition.
    public func touch(_ uses: [SessionUse]) throws(StorageError) {
        guard !uses.isEmpty else { return }
        var w = JSONWriter(capacity: uses.count * 64)
        w.appendRaw("[")
        for (i, use) in uses.enumerated() {
            if i > 0 { w.appendRaw(",") }
            w.appendRaw("{\"id\":")
            w.appendString(use.id)
            w.appendRaw(",\"g\":")
            w.appendInteger(Int64(use.generation))
            w.appendRaw(",\"t\":")
            w.appendNumber(use.time)
            w.appendRaw("}")
        }
        w.appendRaw("]")
        let json = String(decoding: w.bytes, as: UTF8.self)
        try write { c throws(StorageError) in _ = try c.run(SQL.touchMany, [.text(json)]) }
    }

    /// One transaction: the delete, then a delete notice to each session's bucket (sent at the
    /// commit, so no node hears of a delete that did not happen, nor misses one that did).
    public func expire(before time: Double) throws(StorageError) -> [SessionKey] {
        try write { c throws(StorageError) -> [SessionKey] in
            try c.execute("BEGIN")
            do throws(StorageError) {
                let rows = try c.run(SQL.expire, [.double(time)])
                let expired = (0..<rows.count).map { SessionKey(id: rows.text($0, 0), generation: UInt64(rows.int($0, 1))) }
                if !expired.isEmpty {
                    var w = JSONWriter(capacity: expired.count * 64)
                    w.appendRaw("[")
                    for (i, key) in expired.enumerated() {
                        if i > 0 { w.appendRaw(",") }
                        w.appendRaw("[")
                        w.appendString(NoticeBuckets.channel(of: key.id))
                        w.appendRaw(",")
                        w.appendString("d \(key.generation) \(key.id)")
                        w.appendRaw("]")
                    }
                    w.appendRaw("]")
                    _ = try c.run(SQL.notifyMany, [.text(String(decoding: w.bytes, as: UTF8.self))])
                }
                try c.execute("COMMIT")
                return expired
            } catch {
                if c.isConnected && !c.isIdleOutsideTransaction { _ = try? c.execute("ROLLBACK") }
                throw error
            }
        }
    }

    /// Runs a write. A connection lost before its answer leaves its outcome unknown: still
    /// `unavailable`, with that said, so nobody takes it for done.
    func write<R>(_ body: (PostgresConnection) throws(StorageError) -> R) throws(StorageError) -> R {
        var lost = false
        do throws(StorageError) {
            return try pool.with { c throws(StorageError) -> R in
                do throws(StorageError) {
                    return try body(c)
                } catch {
                    lost = !c.isConnected
                    throw error
                }
            }
        } catch {
            if lost, case .unavailable(let why) = error {
                throw .unavailable(why + "; the write may or may not have been committed (a retry of it "
                                   + "finds it applied or applies it)")
            }
            throw error
        }
    }

    /// The conflict a fenced-off write reports: what it expected and what is stored now. `revision`
    /// nil (delete, touch): fenced on the generation only, reported with the stored revision.
    func conflict(_ c: PostgresConnection, _ id: String, _ generation: UInt64, _ revision: Int?,
                  _ base: UInt64? = nil) throws(StorageError) -> StorageError {
        let rows = try c.run(SQL.stored, [.text(id)])
        let stored: (UInt64, Int, UInt64)? = rows.count == 1
            ? (UInt64(rows.int(0, 0)), rows.int(0, 1), UInt64(bitPattern: Int64(rows.int(0, 2)))) : nil
        return .conflict(Conflict(id: id, expectedGeneration: generation, expectedRevision: revision ?? stored?.1 ?? 0,
                                  storedGeneration: stored?.0, storedRevision: stored?.1,
                                  expectedWriteID: base, storedWriteID: stored?.2))
    }

    /// The stored write id of `id` (0 when absent: the fence then fails on the row), for the
    /// writes of tools that name no base.
    private func resolved(_ base: UInt64?, _ c: PostgresConnection, _ id: String) throws(StorageError) -> UInt64 {
        if let base { return base }
        let rows = try c.run(SQL.stored, [.text(id)])
        return rows.count == 1 ? UInt64(bitPattern: Int64(rows.int(0, 2))) : 0
    }

    /// A write id as a bigint parameter (its bits: PostgreSQL has no unsigned type).
    static func value(_ writeID: UInt64) -> PostgresValue { .int(Int(Int64(bitPattern: writeID))) }

    static func delegateText(_ delegates: [String: Bool]) -> String {
        String(decoding: DelegateCoding.encode(delegates), as: UTF8.self)
    }
}
