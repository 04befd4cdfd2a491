import LayoutEngine
import Storage
import Telemetry

/// The API's counters for `GET /metrics`: solver work, event stream traffic, session store calls.
///
/// Process-wide rather than per `LayoutAPI`: they are counted where no `LayoutAPI` is at hand (a
/// session's commit, a subscriber's outbox, the store), and a process serves one API (tests that
/// make several read differences). Each count is one relaxed atomic add on the calling thread's
/// own shard (`ShardedCounters`); text is made only at scrape time (`LayoutAPI.writeMetrics`).
enum APIMetrics {
    // Solver work of edits (PATCH, and PUT of an existing session): `EditStats` of each.
    static let edits = 0
    static let editPivots = 1
    static let editRebuilds = 2
    static let constantsChanged = 3
    static let editsSuggested = 4
    static let constraintsAdded = 5
    static let constraintsRemoved = 6
    /// Whole documents solved from scratch (create, PUT, solve, render, a dormant session's wake).
    static let coldSolves = 7
    // Event streams.
    static let eventsSent = 8
    static let eventsDropped = 9
    // Store calls: `StoreOperation` × (histogram), then errors by kind.
    static let storeHistograms = 10
    static let storeErrors = storeHistograms + StoreOperation.allCases.count * LatencyBuckets.countersPerHistogram
    /// Writes fenced off (`StorageError.conflict`): counted apart from the errors (issue 33). A
    /// conflict is the store working: another writer (a node, a request) changed the session first.
    static let fencingConflicts = storeErrors + StoreErrorKind.allCases.count
    static let total = fencingConflicts + 1

    static let counters = ShardedCounters(count: total)

    @inline(__always)
    static func record(_ stats: EditStats) {
        counters.withShard { s in
            s.add(edits)
            if stats.pivots > 0 { s.add(editPivots, UInt64(stats.pivots)) }
            if stats.rebuilt { s.add(editRebuilds) }
            if stats.constantsChanged > 0 { s.add(constantsChanged, UInt64(stats.constantsChanged)) }
            if stats.editsSuggested > 0 { s.add(editsSuggested, UInt64(stats.editsSuggested)) }
            if stats.added > 0 { s.add(constraintsAdded, UInt64(stats.added)) }
            if stats.removed > 0 { s.add(constraintsRemoved, UInt64(stats.removed)) }
        }
    }

    /// A store call took `nanoseconds` and failed with `error` (nil: succeeded).
    static func recordStore(_ operation: StoreOperation, nanoseconds: Int64, error: StorageError?) {
        counters.withShard { s in
            LatencyBuckets.observe(nanoseconds, into: s,
                                   at: storeHistograms + operation.rawValue * LatencyBuckets.countersPerHistogram)
            if case .conflict? = error {
                s.add(fencingConflicts)
            } else if let error {
                s.add(storeErrors + StoreErrorKind(error).rawValue)
            }
        }
    }
}

/// The session store's calls, as the `operation` label.
enum StoreOperation: Int, CaseIterable {
    case create, replace, appendPatch, saveSnapshot, delete, touch, load, count, ids
    var label: String {
        switch self {
        case .create: return "create"
        case .replace: return "replace"
        case .appendPatch: return "append_patch"
        case .saveSnapshot: return "save_snapshot"
        case .delete: return "delete"
        case .touch: return "touch"
        case .load: return "load"
        case .count: return "count"
        case .ids: return "ids"
        }
    }

    /// A call that changes the store: its failure makes the node not ready (`StoreHealth`).
    var isWrite: Bool {
        switch self {
        case .create, .replace, .appendPatch, .saveSnapshot, .delete, .touch: return true
        case .load, .count, .ids: return false
        }
    }
}

/// `StorageError`'s failures, as the `kind` label (a conflict is no failure: `fencingConflicts`).
enum StoreErrorKind: Int, CaseIterable {
    case unavailable, io, corrupt
    /// `.conflict` never reaches here (`recordStore` counts it apart); were it to, as unavailable.
    init(_ error: StorageError) {
        switch error {
        case .unavailable, .conflict: self = .unavailable
        case .io: self = .io
        case .corrupt: self = .corrupt
        }
    }
    var label: String {
        switch self {
        case .unavailable: return "unavailable"
        case .io: return "io"
        case .corrupt: return "corrupt"
        }
    }
}
