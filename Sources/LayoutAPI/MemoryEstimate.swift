import Synchronization

/// How many bytes a session holds in memory, estimated from what it is made of (the resident
/// byte budget, `SessionRegistry.maxResidentBytes`, and `layoutd_resident_bytes`). Not measured:
/// asking the allocator per session would cost more than the budget saves.
///
/// The figures come from docs/benchmarks.md "Memory per session": a resident 50-view form (about
/// 24 kB of text, 60 constraint entries) takes about 281 KiB, about 257 KiB of it solver, model
/// and frames; a dormant one that keeps its text about 42 KiB. Text counts byte for byte (a
/// document padded with a long label costs its length, whatever the solver makes of it).
enum MemoryEstimate {
    /// Solver rows and columns, the view's model, its frame and variables, a resident view.
    static let bytesPerView = 4096
    /// A constraint entry's model, compiled constraints and solver rows (most entries are one
    /// or two solver constraints).
    static let bytesPerConstraint = 1024
    /// A dormant session's last frame of one view (4 doubles and the array's share).
    static let bytesPerFrame = 40
    /// One remembered `delegate` state (a short key and a flag in a dictionary).
    static let bytesPerDelegate = 64
    /// The session object, its locks, its registry entry and the event list, whatever its size.
    static let bytesPerSession = 1024
}

extension SessionState {
    /// What the session holds in memory while resident, estimated (`MemoryEstimate`).
    var footprint: Int {
        canonical.byteCount + system.document.views.count * MemoryEstimate.bytesPerView
            + system.document.constraints.count * MemoryEstimate.bytesPerConstraint + MemoryEstimate.bytesPerSession
    }
}

/// The estimated bytes of the sessions a registry holds (`Session.footprint`, summed as they
/// change): what the resident byte budget compares and `layoutd_resident_bytes` shows.
final class MemoryAccount: Sendable {
    private let total = Atomic<Int>(0)
    var bytes: Int { total.load(ordering: .relaxed) }
    func add(_ delta: Int) { total.add(delta, ordering: .relaxed) }
}
