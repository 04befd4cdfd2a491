import Storage

extension PostgresSessionStorage {
    /// A read of the one-row `layoutd_schema`; a write rewrites that row unchanged (a new row
    /// version, WAL and a commit under this node's `synchronous_commit`): it fails where a
    /// session's write would (server read-only, disk full, database away), and takes no lock a
    /// session's write waits for.
    public func probe(write: Bool) throws(StorageError) {
        try pool.with(idempotent: true) { c throws(StorageError) in
            if write {
                try c.execute("UPDATE layoutd_schema SET version = version")
            } else {
                _ = try c.texts("SELECT version FROM layoutd_schema")
            }
        }
    }
}
