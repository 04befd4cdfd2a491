import Synchronization

/// The key → position table of one large `JSONObject`, filled on its first lookup.
///
/// Objects are values shared between threads (`Sendable`), and the first lookup may happen on any
/// copy from any thread, so the table sits behind a lock; after the first fill every lookup is a
/// lock and one hash.
final class KeyIndex: Sendable {
    private let table: Mutex<[String: Int]?>

    /// - Parameter built: the table when the caller already has it (nil: filled on first lookup).
    init(_ built: [String: Int]?) {
        table = Mutex(built)
    }

    /// The position of `key` in `keys` (the keys of the object this index belongs to).
    func position(of key: String, in keys: [String]) -> Int? {
        table.withLock { table in
            if table == nil {
                var d = [String: Int](minimumCapacity: keys.count)
                for (i, k) in keys.enumerated() { d[k] = i }
                table = d
            }
            return table![key]
        }
    }

    /// Records a key appended at `position` (only by the object's sole owner). Nothing to do while
    /// the table is not filled: the fill reads the keys as they are then.
    func appended(_ key: String, at position: Int) {
        table.withLock { table in
            if table != nil { table![key] = position }
        }
    }
}
