import Dispatch
import Primitives
import Storage

/// Something about the session store an operator should read in the log (issue 27, item 7): the
/// daemon sets `APIConfiguration.onStoreEvent` to write these lines; the API has no logger.
public enum StoreEvent: Equatable, Sendable {
    /// A store call failed (a fenced write is no failure: it is the API's normal race).
    /// `operation`: the call (`append_patch`, `load`, `probe_write`, ...); `error`: the store's own
    /// text (it names the file or table and what happened, so it goes to the log, never to a client);
    /// `notReady`: it makes the node answer `/readyz` with 503 (a failed write, until a probe write
    /// succeeds; a failed probe, while it fails); a failed read of a session does not;
    /// `repeats`: failures with this same text since it was last reported and not reported (each
    /// text is reported at most once per `StoreHealth.reportInterval`).
    case failed(operation: String, error: String, notReady: Bool, repeats: Int)
    /// A probe write succeeded after writes had failed: `/readyz` answers 200 again.
    case recovered
    /// A copy in memory held a revision the store no longer has (a PostgreSQL crash with
    /// `sync: everysec` loses the last acknowledged commits): the copy was replaced by the stored
    /// session, which the next write builds on (issue 33). `heldRevision` and `storedRevision` are
    /// the first such session's; `repeats`: sessions caught up so since the last report (at most
    /// one report per `StoreHealth.reportInterval`).
    case lostRevisions(heldRevision: Int, storedRevision: Int, repeats: Int)
}

/// What the API knows of its store's health, for `/readyz` and the log.
///
/// Before issue 27 readiness read one id a second and nothing else, so with the store file deleted
/// or the disk full every PATCH answered 503 while `/readyz` said ready, and no failure was logged.
/// Now:
/// - a failed write (any but a conflict) makes the node not ready at once, and it stays so until
///   a *probe write* (`SessionStorage.probe(write: true)`, one tiny row) succeeds: a write that
///   fails again keeps it out of the balancer, a store that works again brings it back without a
///   restart;
/// - while ready, the probe is a read (`probe(write: false)`; for SQLite it also checks that the
///   path still names the opened file);
/// - the store is probed at most once per `checkInterval`, by one caller at a time: the others (a
///   balancer's pollers) answer what is known meanwhile, rather than wait behind a store that hangs;
/// - every failure is reported to `report`, at most once per `reportInterval` per distinct text,
///   with the count of the ones held back, so a full disk under load is a line every 10 s, not
///   one a request; and the interval doubles with each report of the same text, up to
///   `maxReportInterval` (issue 33: an outage of an hour is a dozen lines per cause, not 360),
///   and starts over once a probe write succeeds (a new outage is said at once).
final class StoreHealth: Sendable {
    static let checkInterval = 1.0
    static let reportInterval = 10.0
    static let maxReportInterval = 600.0
    /// Distinct failure texts remembered for rate-limiting; beyond (texts naming sessions, say),
    /// new texts within the interval are not reported: the log must not grow with the load.
    static let maxCauses = 64

    private struct Cause {
        var reportedAt: Double
        var repeats: Int
        /// How long after `reportedAt` this text is reported again.
        var interval = StoreHealth.reportInterval
    }

    private struct State {
        /// The API clock's reading at the last probe; nil before the first.
        var checkedAt: Double?
        /// What `/readyz` says is wrong (the kind of failure, never the store's text); nil: ready.
        var problem: String?
        /// A write failed and no probe write succeeded since.
        var writesFailing = false
        /// Write failures so far: a probe write that began before one must not clear it.
        var writeFailures: UInt64 = 0
        /// When the probe under way started (the API clock); nil: none is.
        var probingSince: Double?
        var causes: [String: Cause] = [:]

        /// Whether to report a failure with `text` now, and with how many held back before it.
        mutating func admit(_ text: String, now: Double) -> Int? {
            if let cause = causes[text] {
                guard now - cause.reportedAt >= cause.interval else {
                    causes[text]!.repeats += 1
                    return nil
                }
                causes[text] = Cause(reportedAt: now, repeats: 0,
                                     interval: min(cause.interval * 2, StoreHealth.maxReportInterval))
                return cause.repeats
            }
            if causes.count >= StoreHealth.maxCauses {
                causes = causes.filter { now - $0.value.reportedAt < $0.value.interval }
                if causes.count >= StoreHealth.maxCauses { return nil }
            }
            causes[text] = Cause(reportedAt: now, repeats: 0)
            return 0
        }
    }

    private let state = Locked(State())
    /// Seconds on the API's clock (`APIConfiguration.clock`: monotonic, or the tests' own).
    private let clock: @Sendable () -> Double
    private let report: (@Sendable (StoreEvent) -> Void)?

    init(clock: @escaping @Sendable () -> Double, report: (@Sendable (StoreEvent) -> Void)?) {
        self.clock = clock
        self.report = report
    }

    /// A store call failed: reported (rate-limited); a write also makes the node not ready.
    func failed(_ operation: String, _ error: StorageError, write: Bool) {
        if case .conflict = error { return }
        if write {
            state.withLock { s in
                s.writesFailing = true
                s.writeFailures &+= 1
                s.problem = Self.readinessText(error)
            }
        }
        reportFailure(operation, error, notReady: write)
    }

    private func reportFailure(_ operation: String, _ error: StorageError, notReady: Bool) {
        let text = error.description
        let now = clock()
        if let repeats = state.withLock({ $0.admit(text, now: now) }) {
            report?(.failed(operation: operation, error: text, notReady: notReady, repeats: repeats))
        }
    }

    /// A copy was ahead of the store and was replaced by the stored session (`StoreEvent.lostRevisions`):
    /// reported once per `reportInterval`, with the count held back.
    func lostRevisions(held: Int, stored: Int) {
        if let repeats = state.withLock({ $0.admit("lost revisions", now: clock()) }) {
            report?(.lostRevisions(heldRevision: held, storedRevision: stored, repeats: repeats))
        }
    }

    /// Where probes run: never on the caller's thread, an event loop that must not wait for a
    /// store that may hang (issue 28).
    private let prober = DispatchQueue(label: "layoutd.store-probe")

    /// Why the node is not ready, or nil when it is, within `checkInterval` whatever the store
    /// does: when the last probe is `checkInterval` old a new one runs (off the calling thread: a
    /// write while writes fail, else a read) and, if the caller may wait, is waited for up to
    /// `checkInterval`; a probe still under way a second after it started means the store does
    /// not answer. Otherwise the last finding, at once.
    func readiness(probing storage: SessionRepository, mayWait: Bool = true) -> String? {
        let now = clock()
        let due = state.withLock { s in
            s.probingSince == nil && (s.checkedAt.map { now - $0 >= Self.checkInterval } ?? true)
        }
        let plan: (write: Bool, failures: UInt64)? = due ? state.withLock { s in
            guard s.probingSince == nil, s.checkedAt.map({ now - $0 >= Self.checkInterval }) ?? true else { return nil }
            s.probingSince = now
            return (s.writesFailing, s.writeFailures)
        } : nil
        if let plan {
            let done = DispatchSemaphore(value: 0)
            prober.async { [self] in
                probe(storage, plan, started: now)
                done.signal()
            }
            // An event loop does not wait: it answers what the last probe found (at most a poll
            // interval old), or that the store does not answer once a probe has run a second.
            if mayWait { _ = done.wait(timeout: .now() + Self.checkInterval) }
        }
        return state.withLock { s in
            // The API's clock may be a test's, which does not move while the probe runs: a probe
            // not finished after the wait above is one the store did not answer.
            if s.probingSince != nil, (plan != nil && mayWait) || clock() - s.probingSince! >= Self.checkInterval {
                return "the session store does not answer"
            }
            return s.problem
        }
    }

    private func probe(_ storage: SessionRepository, _ plan: (write: Bool, failures: UInt64), started now: Double) {
        var failure: StorageError? = nil
        do throws(StorageError) {
            try storage.probe(write: plan.write)
        } catch {
            failure = error
        }
        let recovered: Bool = state.withLock { s in
            s.probingSince = nil
            s.checkedAt = now
            if let failure {
                s.problem = Self.readinessText(failure)
            } else if s.writeFailures == plan.failures {
                // No write failed while the probe ran: its success is the store's state now.
                let wasFailing = s.writesFailing
                s.writesFailing = false
                s.problem = nil
                // The outage is over: the next one is reported at once, whatever its text.
                if wasFailing { s.causes = [:] }
                return wasFailing
            }
            return false
        }
        if let failure { reportFailure(plan.write ? "probe_write" : "probe_read", failure, notReady: true) }
        if recovered { report?(.recovered) }
    }

    /// The kind of failure for `/readyz`'s body, never the store's own text (it names files on
    /// the server).
    static func readinessText(_ error: StorageError) -> String {
        switch error {
        case .unavailable: return "the session store is unavailable"
        case .io: return "the session store cannot be read or written"
        case .corrupt: return "the session store found damage"
        case .conflict: return "the session store refused a read"
        }
    }
}
