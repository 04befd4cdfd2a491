import Storage

extension SQLiteSessionStorage {
    /// A read: the path must still name the file the store opened (a replaced file is read on
    /// through the descriptor SQLite holds, and would look healthy), then one row of `meta`. A
    /// write: the `probed_at` row of `meta`, committed through the write queue like any session's
    /// write, so it fails where they would (full disk, read-only file, file gone). Session reads
    /// do not check the path (a `stat` each): resident sessions are answered from memory anyway,
    /// and readiness takes the node out of the balancer within a second.
    public func probe(write: Bool) throws(StorageError) {
        if write {
            _ = try submit(.probe)
            return
        }
        try checkFileIsStillThere()
        _ = try read { c throws(StorageError) in try c.integer("SELECT count(*) FROM meta") }
    }
}
