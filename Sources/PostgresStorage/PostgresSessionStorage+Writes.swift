import Storage

extension PostgresSessionStorage {
    public func create(id: String, revision: Int, document: [UInt8], delegates: [String: Bool]) throws(StorageError) -> UInt64 {
        let now = clock()
        return try write { c throws(StorageError) -> UInt64 in
            let rows = try c.run(SQL.create, [.text(id), .int(revision), .bytes(document),
                                              .text(Self.delegateText(delegates)), .double(now)])
            guard rows.count == 1 else { throw try conflict(c, id, 0, 0) }
            return UInt64(rows.int(0, 0))
        }
    }

    public func replace(id: String, generation: UInt64, revision: Int, document: [UInt8],
                        delegates: [String: Bool]) throws(StorageError) {
        let now = clock()
        try write { c throws(StorageError) in
            let rows = try c.run(SQL.replace, [.text(id), .int(Int(generation)), .int(revision), .bytes(document),
                                               .text(Self.delegateText(delegates)), .double(now)])
            if rows.count != 1 { throw try conflict(c, id, generation, revision - 1) }
        }
    }

    @discardableResult
    public func appendPatch(id: String, generation: UInt64, revision: Int, patch: [UInt8],
                            delegates: [String: Bool]?) throws(StorageError) -> AppendResult {
        let now = clock()
        return try write { c throws(StorageError) -> AppendResult in
            let rows = try c.run(SQL.append, [.text(id), .int(Int(generation)), .int(revision), .bytes(patch),
                                              delegates.map { .text(Self.delegateText($0)) } ?? .null, .double(now)])
            guard rows.count == 1 else { throw try conflict(c, id, generation, revision - 1) }
            return AppendResult(snapshotDue: policy.isDue(patchCount: rows.int(0, 0), patchBytes: rows.int(0, 1),
                                                          snapshotBytes: rows.int(0, 2)))
        }
    }

    public func saveSnapshot(id: String, generation: UInt64, revision: Int, document: [UInt8]) throws(StorageError) {
        try write { c throws(StorageError) in
            let rows = try c.run(SQL.snapshot, [.text(id), .int(Int(generation)), .int(revision), .bytes(document)])
            if rows.count != 1 { throw try conflict(c, id, generation, revision) }
        }
    }

    public func delete(id: String, generation: UInt64) throws(StorageError) {
        try write { c throws(StorageError) in
            try c.execute("BEGIN")
            do throws(StorageError) {
                let rows = try c.run(SQL.deleteSession, [.text(id), .int(Int(generation))])
                guard rows.count == 1 else {
                    try c.execute("ROLLBACK")
                    throw try conflict(c, id, generation, nil)
                }
                _ = try c.run(SQL.deletePatches, [.text(id), .int(Int(generation))])
                try c.execute("COMMIT")
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
    func conflict(_ c: PostgresConnection, _ id: String, _ generation: UInt64, _ revision: Int?) throws(StorageError) -> StorageError {
        let rows = try c.run(SQL.stored, [.text(id)])
        let stored: (UInt64, Int)? = rows.count == 1 ? (UInt64(rows.int(0, 0)), rows.int(0, 1)) : nil
        return .conflict(Conflict(id: id, expectedGeneration: generation, expectedRevision: revision ?? stored?.1 ?? 0,
                                  storedGeneration: stored?.0, storedRevision: stored?.1))
    }

    static func delegateText(_ delegates: [String: Bool]) -> String {
        String(decoding: DelegateCoding.encode(delegates), as: UTF8.self)
    }
}
