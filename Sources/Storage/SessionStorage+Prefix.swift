extension SessionStorage {
    /// How many stored sessions have ids starting with `prefix` (a tenant's: `tenant/`), counting
    /// no further than `limit`. Every store lists its ids in byte order (`ids(after:limit:)`;
    /// PostgreSQL's column is `COLLATE "C"`), so a prefix's ids are one run that starts after the
    /// prefix itself: a quota check reads at most `limit` ids of it, a page at a time.
    public func count(prefix: String, upTo limit: Int) throws(StorageError) -> Int {
        var counted = 0
        var after = prefix
        while counted < limit {
            let asked = min(1_000, limit - counted)
            let page = try ids(after: after, limit: asked)
            for id in page {
                guard id.hasPrefix(prefix) else { return counted }
                counted += 1
            }
            guard page.count == asked, let last = page.last else { return counted }
            after = last
        }
        return counted
    }
}
