#if canImport(Glibc)
import Glibc
#endif
import Storage

extension SQLiteSessionStorage {
    /// `PRAGMA quick_check` (every page and index entry, without comparing indexes to tables: seconds
    /// per gigabyte) and the records' consistency: each session has a snapshot, its patches are the
    /// revisions after the snapshot with the counted sizes, its delegate memory is JSON, and nothing
    /// is left of a deleted session.
    public func check() throws(StorageError) -> StorageCheck {
        let files = fileBytes
        return try read { c throws(StorageError) -> StorageCheck in
            var problems: [String] = []
            let quick = try c.texts("PRAGMA quick_check")
            if quick != ["ok"] { problems += quick.prefix(20).map { "\(path): \($0)" } }
            let inconsistent = """
                SELECT s.id, coalesce(p.n, 0), s.patch_count, coalesce(p.lo, 0), coalesce(p.hi, 0),
                       s.snapshot_revision, s.revision
                FROM sessions s LEFT JOIN (SELECT key, count(*) AS n, sum(length(patch)) AS b, min(revision) AS lo,
                                                  max(revision) AS hi FROM patches GROUP BY key) p ON p.key = s.key
                WHERE (p.n IS NULL AND s.revision != s.snapshot_revision)
                   OR (p.n IS NOT NULL AND (p.lo != s.snapshot_revision + 1 OR p.hi < s.revision OR p.n != p.hi - p.lo + 1))
                LIMIT 20
                """
            let s = try c.statement(inconsistent)
            defer { s.reset() }
            while try s.step() {
                problems.append("\(path): session '\(s.text(0))' has \(s.int(1)) patches (revisions \(s.int(3))...\(s.int(4))) "
                                + "but its row has snapshot revision \(s.int(5)) and revision \(s.int(6))")
            }
            let counts: [(String, String)] = [
                ("sessions without a snapshot", "SELECT count(*) FROM sessions s WHERE NOT EXISTS (SELECT 1 FROM snapshots n WHERE n.key = s.key)"),
                ("snapshots of no session", "SELECT count(*) FROM snapshots n WHERE NOT EXISTS (SELECT 1 FROM sessions s WHERE s.key = n.key)"),
                ("patches of no session", "SELECT count(*) FROM patches p WHERE NOT EXISTS (SELECT 1 FROM sessions s WHERE s.key = p.key)"),
                ("snapshots of another size than counted", "SELECT count(*) FROM sessions s JOIN snapshots n ON n.key = s.key WHERE length(n.document) != s.snapshot_bytes"),
                ("sessions whose delegate memory is not JSON", "SELECT count(*) FROM sessions WHERE json_valid(delegates) = 0"),
            ]
            for (what, sql) in counts {
                let n = try c.integer(sql)
                if n > 0 { problems.append("\(path): \(n) \(what)") }
            }
            return StorageCheck(problems: problems, sessions: try c.integer("SELECT count(*) FROM sessions"),
                                patches: try c.integer("SELECT count(*) FROM patches"),
                                snapshotBytes: try c.integer("SELECT coalesce(sum(snapshot_bytes), 0) FROM sessions"),
                                fileBytes: files)
        }
    }

    /// Folds each session's patches into a snapshot (a page of ids at a time, each fold a fenced
    /// write: a session edited meanwhile is left to its writer), then gives the free pages back to
    /// the file system (`incremental_vacuum`: the file was made with incremental auto-vacuum, so no
    /// full `VACUUM` and its second copy of the file) and empties the write-ahead log.
    @discardableResult
    public func compact(replay: PatchReplay) throws(StorageError) -> CompactionReport {
        var report = CompactionReport(sessionsFolded: 0, patchesFolded: 0, failures: [], fileBytesBefore: fileBytes,
                                      fileBytesAfter: 0)
        var after: String? = nil
        while true {
            let page = try read { c throws(StorageError) -> [String] in
                // (`patch_count` is as of the row's last write: the patches themselves say.)
                let patched = "EXISTS (SELECT 1 FROM patches p WHERE p.key = sessions.key)"
                let s = try c.statement(after == nil ? "SELECT id FROM sessions WHERE \(patched) ORDER BY id LIMIT 256"
                                        : "SELECT id FROM sessions WHERE \(patched) AND id > ?1 ORDER BY id LIMIT 256")
                defer { s.reset() }
                if let after { s.bind(1, after) }
                var ids: [String] = []
                while try s.step() { ids.append(s.text(0)) }
                return ids
            }
            guard let last = page.last else { break }
            after = last
            for id in page { try foldPatches(of: id, replay: replay, into: &report) }
        }
        try exclusive { c throws(StorageError) in
            try c.execute("PRAGMA incremental_vacuum")
            // TRUNCATE: the log is copied into the file, synced, and cut to zero bytes. It answers
            // "busy" (first column 1) rather than an error when a reader still needs the log: a
            // reader's transaction is short, so it is asked again for up to a second.
            for _ in 0..<100 {
                if try c.integer("PRAGMA wal_checkpoint(TRUNCATE)") == 0 { break }
                usleep(10_000)
            }
        }
        report.fileBytesAfter = fileBytes
        return report
    }
}
