/// A stored session by id and generation (`touch`, `expire`).
public struct SessionKey: Hashable, Sendable {
    public var id: String
    public var generation: UInt64
    public init(id: String, generation: UInt64) {
        self.id = id
        self.generation = generation
    }
}

/// A use of a stored session at `time` (seconds since 1970), for `touch`.
public struct SessionUse: Hashable, Sendable {
    public var id: String
    public var generation: UInt64
    public var time: Double
    public init(id: String, generation: UInt64, time: Double) {
        self.id = id
        self.generation = generation
        self.time = time
    }
}

extension SessionStorage {
    /// One `touch(id:generation:at:)` per use (a write each), skipping sessions deleted or made
    /// anew and keeping a later stored use. Correct but not batched: a backend overrides it with
    /// one write (memory, SQLite).
    public func touch(_ uses: [SessionUse]) throws(StorageError) {
        for use in uses {
            guard let stored = try load(id: use.id), stored.generation == use.generation,
                  stored.lastUsed < use.time else { continue }
            do throws(StorageError) {
                try touch(id: use.id, generation: use.generation, at: use.time)
            } catch {
                guard case .conflict = error else { throw error }
            }
        }
    }

    /// Reads every stored session (`ids`, `load`) and deletes those idle: correct but reads the
    /// whole store at each call; a backend overrides it with one query (memory, SQLite).
    public func expire(before time: Double) throws(StorageError) -> [SessionKey] {
        var expired: [SessionKey] = []
        var after: String? = nil
        while true {
            let page = try ids(after: after, limit: 256)
            guard let last = page.last else { return expired }
            after = last
            for id in page {
                guard let stored = try load(id: id), stored.lastUsed < time else { continue }
                // Conditional: a use between the read and the delete keeps it.
                if try expire(id: id, generation: stored.generation, before: time) {
                    expired.append(SessionKey(id: id, generation: stored.generation))
                }
            }
        }
    }
}
