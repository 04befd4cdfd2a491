import Storage

extension PostgresSessionStorage {
    /// The records' consistency, in one repeatable-read transaction (one view of the store while the
    /// nodes write): each session's patches are the revisions after its snapshot, of its
    /// generation, with the counted sizes; no patch of an absent session or older generation; the
    /// snapshot's size as counted; the delegate memory decodes; no generation above the sequence
    /// (a new session could be handed it). The server's own page checks are PostgreSQL's business
    /// (data checksums, `pg_amcheck`).
    public func check() throws(StorageError) -> StorageCheck {
        try pool.with { c throws(StorageError) -> StorageCheck in
            try c.execute("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY")
            defer { if c.isConnected { _ = try? c.execute("ROLLBACK") } }
            var problems: [String] = []
            let inconsistent = try c.texts("""
                SELECT s.id, coalesce(p.n, 0), s.patch_count, coalesce(p.lo, 0), coalesce(p.hi, 0),
                       s.snapshot_revision, s.revision
                FROM layoutd_sessions s
                LEFT JOIN (SELECT id, generation, count(*) AS n, sum(length(bytes)) AS b, min(revision) AS lo,
                                  max(revision) AS hi FROM layoutd_patches GROUP BY id, generation) p
                       ON p.id = s.id AND p.generation = s.generation
                WHERE coalesce(p.n, 0) != s.patch_count OR coalesce(p.b, 0) != s.patch_bytes
                   OR (p.n IS NULL AND s.revision != s.snapshot_revision)
                   OR (p.n IS NOT NULL AND (p.lo != s.snapshot_revision + 1 OR p.hi != s.revision OR p.n != p.hi - p.lo + 1))
                ORDER BY s.id LIMIT 20
                """)
            for r in inconsistent {
                problems.append("PostgreSQL: session '\(r[0] ?? "")' has \(r[1] ?? "0") patches (revisions \(r[3] ?? "0")..."
                                + "\(r[4] ?? "0")) but its row counts \(r[2] ?? "0") after snapshot revision \(r[5] ?? "0") "
                                + "up to revision \(r[6] ?? "0")")
            }
            let counts: [(String, String)] = [
                ("patches of no stored session (or of an older generation)", """
                    SELECT count(*) FROM layoutd_patches p WHERE NOT EXISTS
                        (SELECT 1 FROM layoutd_sessions s WHERE s.id = p.id AND s.generation = p.generation)
                    """),
                ("snapshots of another size than counted",
                 "SELECT count(*) FROM layoutd_sessions WHERE octet_length(snapshot) != snapshot_bytes"),
                ("sessions whose generation is above the generation sequence (a new session could reuse it)",
                 "SELECT count(*) FROM layoutd_sessions WHERE generation > (SELECT last_value FROM layoutd_generation)"),
            ]
            for (what, sql) in counts {
                let n = Int(try c.texts(sql).first?.first.flatMap { $0 } ?? "0") ?? 0
                if n > 0 { problems.append("PostgreSQL: \(n) \(what)") }
            }
            // The delegate memory is decoded as a load decodes it (PostgreSQL 15 has no "is valid
            // JSON" test that does not throw).
            var undecodable = 0
            for r in try c.texts("SELECT id, delegates FROM layoutd_sessions ORDER BY id") {
                if DelegateCoding.decode(Array((r[1] ?? "").utf8)) == nil {
                    undecodable += 1
                    if undecodable <= 20 { problems.append("PostgreSQL: session '\(r[0] ?? "")': its delegate memory is not a JSON object of booleans") }
                }
            }
            let totals = try c.texts("""
                SELECT (SELECT count(*) FROM layoutd_sessions), (SELECT count(*) FROM layoutd_patches),
                       (SELECT coalesce(sum(snapshot_bytes), 0) FROM layoutd_sessions),
                       pg_total_relation_size('layoutd_sessions') + pg_total_relation_size('layoutd_patches')
                """)
            let t = totals.first ?? []
            func number(_ i: Int) -> Int { i < t.count ? Int(t[i] ?? "0") ?? 0 : 0 }
            return StorageCheck(problems: problems, sessions: number(0), patches: number(1), snapshotBytes: number(2),
                                fileBytes: number(3))
        }
    }

    /// The tables' size on disk, with their indexes and out-of-line values.
    var fileBytes: Int {
        get throws(StorageError) {
            try pool.with { c throws(StorageError) -> Int in
                let rows = try c.texts("SELECT pg_total_relation_size('layoutd_sessions') + pg_total_relation_size('layoutd_patches')")
                return Int(rows.first?.first.flatMap { $0 } ?? "0") ?? 0
            }
        }
    }

    /// Folds each session's patches into a snapshot (a page of ids at a time, each fold a fenced
    /// write: a session a node edits meanwhile is left to it), then `VACUUM`s the tables: dead rows
    /// become free space for new ones and empty pages at the end go back to the file system. No
    /// `VACUUM FULL`: it would lock the tables against every node while it rewrites them.
    @discardableResult
    public func compact(replay: PatchReplay) throws(StorageError) -> CompactionReport {
        var report = CompactionReport(sessionsFolded: 0, patchesFolded: 0, failures: [], fileBytesBefore: try fileBytes,
                                      fileBytesAfter: 0)
        var after = ""
        while true {
            let page = try pool.with { c throws(StorageError) -> [String] in
                let rows = try c.run(SQL.foldable, [.text(after)])
                return (0..<rows.count).map { rows.text($0, 0) }
            }
            guard let last = page.last else { break }
            after = last
            for id in page { try foldPatches(of: id, replay: replay, into: &report) }
        }
        try pool.with { c throws(StorageError) in
            // Leftover patches (none unless a bug or a hand edit made them) go with the fold.
            try c.execute("""
                DELETE FROM layoutd_patches p WHERE NOT EXISTS
                    (SELECT 1 FROM layoutd_sessions s WHERE s.id = p.id AND s.generation = p.generation)
                """)
            try c.execute("VACUUM (ANALYZE) layoutd_sessions, layoutd_patches")
        }
        report.fileBytesAfter = try fileBytes
        return report
    }
}
