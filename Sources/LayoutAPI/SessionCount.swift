import Dispatch
import Primitives
import Storage

/// How many sessions the session store holds: what `maxSessions` limits when there is a store,
/// and what `/healthz`'s `sessions` and the `layoutd_sessions{state="stored"}` gauge show. Every
/// change of the count goes through here (creates, deletes, expiry).
///
/// - **A store of this node's own** (SQLite, memory): exact. `count()` at start, then this node's
///   creates and deletes; nobody else changes it.
/// - **A shared store** (several nodes): other nodes create and delete too, so a tally of this
///   node's changes drifts without bound (issue 27: creates on one node and deletes on another left
///   the first answering 429 for ever over an empty store, the second reporting -19 sessions). The
///   count is the store's `count()`, read again when the last reading is more than
///   `refreshSeconds` old and adjusted by this node's own changes in between. One caller reads at a
///   time; the others go on with the last reading meanwhile. A failed reading keeps the last value
///   (and is not tried again within `refreshSeconds`). Nodes may together pass `maxSessions` by
///   what the others created within the last second.
///
/// Never negative: a delete of a session created before the last reading is not counted twice
/// below zero.
final class SessionCount: Sendable {
    /// How old a shared store's reading may be.
    static let refreshSeconds = 1.0

    private struct Tally {
        var value: Int
        /// The API clock's reading at the last `count()` (tried); nil: never.
        var readAt: Double?
        var reading = false
    }

    private let tally: Locked<Tally>
    /// The store to read again; nil when nobody else changes it (or there is none).
    private let shared: (any SessionStorage)?
    private let clock: @Sendable () -> Double
    /// Where `cached` has the store read, off the caller's thread.
    private let readQueue = DispatchQueue(label: "layoutd.session-count")

    /// Reads `storage`'s count now; a count that fails here is 0 (the first write then answers
    /// 503 anyway) and, on a shared store, is read again at the next use.
    init(storage: (any SessionStorage)?, clock: @escaping @Sendable () -> Double) {
        let counted = try? storage?.count()
        shared = storage?.isShared == true ? storage : nil
        self.clock = clock
        tally = Locked(Tally(value: max(0, counted ?? 0), readAt: counted == nil ? nil : clock()))
    }

    /// The count, read again from a shared store first when the last reading is too old (on the
    /// caller's thread: a create, which writes to the store next anyway).
    var value: Int {
        readIfDue(waiting: true)
        return tally.withLock { $0.value }
    }

    /// The count without waiting for the store (`/healthz`, `/metrics`: a frozen store must not
    /// stall them): a reading that is too old is renewed in the background for the next caller.
    var cached: Int {
        readIfDue(waiting: false)
        return tally.withLock { $0.value }
    }

    /// Counts one more session if that keeps the count within `limit` (false: the create answers
    /// 429). The caller gives it back (`release`) when its create does not happen.
    func reserve(limit: Int) -> Bool {
        readIfDue(waiting: true)
        return tally.withLock { t in
            guard t.value < limit else { return false }
            t.value += 1
            return true
        }
    }

    /// A reserved create that did not happen.
    func release() { removed(1) }

    /// `n` sessions left the store (deleted, expired).
    func removed(_ n: Int) {
        tally.withLock { $0.value = max(0, $0.value - n) }
    }

    private func readIfDue(waiting: Bool) {
        guard let storage = shared else { return }
        let now = clock()
        let due = tally.withLock { t -> Bool in
            // A clock that went back (tests move theirs by hand) makes the reading due too.
            if t.reading { return false }
            if let at = t.readAt, now >= at, now - at < Self.refreshSeconds { return false }
            t.reading = true
            return true
        }
        guard due else { return }
        let read: @Sendable () -> Void = { [tally, clock] in
            let counted = try? storage.count()
            tally.withLock { t in
                t.reading = false
                t.readAt = clock()
                if let counted { t.value = max(0, counted) }
            }
        }
        if waiting { read() } else { readQueue.async(execute: read) }
    }
}
