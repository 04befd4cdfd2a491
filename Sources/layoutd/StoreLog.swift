import LayoutAPI
import Logging

/// The daemon's log lines about its session store (issue 27, item 7): the API reports failures
/// (`APIConfiguration.onStoreEvent`, already at most one per distinct error per 10 s, backing off
/// to one per 10 minutes while it goes on: `StoreHealth`) and the store taking
/// writes again; this words them. The error text is the store's own: it names the file (SQLite)
/// or table (PostgreSQL) and what happened, which belongs in the operator's log and never in a
/// client's answer. No store URL is printed here.
enum StoreLog {
    static func write(_ event: StoreEvent, to logger: Logger) {
        switch event {
        case .failed(let operation, let error, let notReady, let repeats):
            let held = repeats > 0 ? " (\(repeats) more failure(s) with this error since it was last logged)" : ""
            if notReady {
                logger.error("session store \(operation) failed: \(error)\(held); not ready (GET /readyz answers 503) until the store works again")
            } else {
                logger.warning("session store \(operation) failed: \(error)\(held)")
            }
        case .recovered:
            // Warning, as the failures are: at `logLevel: warning` an outage has an end in the log.
            logger.warning("session store takes writes again (a probe write succeeded); ready")
        case .lostRevisions(let held, let stored, let repeats):
            let more = repeats > 0 ? " (and \(repeats) more session(s) since this was last logged)" : ""
            logger.warning("session store lost acknowledged revisions: a session was at revision \(held) here and at \(stored) in the store, which now serves and builds on the store's\(more)")
        }
    }
}
