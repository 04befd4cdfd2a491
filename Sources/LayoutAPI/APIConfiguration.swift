import Primitives
import LayoutModel

/// The API's settings: the limits of http.md "Limits and configuration" that belong to the API
/// (bind address, port and threads belong to the daemon), and a clock for session expiry.
public struct APIConfiguration: Sendable {
    /// Largest request body accepted, in bytes; a larger one is a 413. Default 1 MiB (the
    /// transport should enforce the same limit before buffering; this check gives the friendly
    /// problem body).
    public var maxBodyBytes: Int
    /// Most views per document (422 `too_many_views` beyond). Default 20 000.
    public var maxViews: Int
    /// Most constraint entries per document (422 `too_many_constraints` beyond). Default 100 000.
    public var maxConstraints: Int
    /// Most sessions alive at once; creating one more answers 429. Default 10 000. With a session
    /// store, the sessions it holds (woken or not) are what counts.
    public var maxSessions: Int
    /// Most sessions kept resident, their solver in memory; beyond, the least recently used
    /// sleep as their canonical document text and are solved again on their next request
    /// (docs/http.md, "Resident and dormant sessions"). 0: no limit. Default 0 here; the daemon's
    /// configuration sets 1 000.
    public var maxResidentSessions: Int
    /// Most bytes the sessions in memory may take, estimated from their document text and their
    /// views and constraint entries (`MemoryEstimate`); beyond, the least recently used sleep as
    /// for `maxResidentSessions` (with a session store a sleeping session keeps no text at all).
    /// 0: no limit. Default 0 here; the daemon's configuration sets 1 GiB.
    public var maxResidentBytes: Int
    /// A session not touched (by any request naming it) for this many seconds is dropped.
    /// Default 900 (15 minutes); 0 or less never expires sessions.
    public var sessionIdleTimeoutSeconds: Double
    /// Origins allowed to call the API from a browser: exact `scheme://host[:port]` strings,
    /// `scheme://host:*` (any port), or `*` for any origin. Default none (no CORS headers at all).
    public var corsOrigins: [String]
    /// Deepest nesting of arrays/objects accepted in a body; deeper is a 400. Default 64 (a
    /// layout document needs about 6).
    public var maxJSONDepth: Int
    /// Most open event streams (`GET …/events`) on one session; one more is a 429 with
    /// `Retry-After`. Default 100: each revision is written to every subscriber on its worker.
    public var maxSubscribersPerSession: Int
    /// Most open event streams over all sessions; one more is a 503 with `Retry-After`.
    /// Default 1 000.
    public var maxSubscribers: Int
    /// A request whose body is at least this large, or that wakes a dormant session whose
    /// document text is at least this large, is expensive (`LayoutAPI.isExpensive`): the daemon
    /// answers it off the worker's loop. Default 64 KiB (a document of that size costs 3 ms or
    /// more to parse, validate and solve).
    public var expensiveBytes: Int
    /// Seconds on a monotonic clock; injected by tests of expiry. Default: `ContinuousClock`.
    public var clock: @Sendable () -> Double
    /// Told of session store failures (each distinct error at most once per 10 s, with a count of
    /// the ones held back) and of the store taking writes again: the daemon logs them. Not in
    /// `init`: a host without a log leaves it nil.
    public var onStoreEvent: (@Sendable (StoreEvent) -> Void)? = nil
    /// Told once of each origin whose cross-origin request was refused (not in `corsOrigins`, not
    /// the daemon's own): the daemon logs it, naming the setting. Not in `init`, as `onStoreEvent`.
    public var onRefusedOrigin: (@Sendable (String) -> Void)? = nil
    /// Access control: keys, tenants, rate limits (`AccessPolicy`); nil: every request is
    /// answered, as the one tenant-less user. Not in `init`: the daemon reads a keys file for it.
    public var access: AccessPolicy? = nil

    public init(maxBodyBytes: Int = 1_048_576, maxViews: Int = 20_000, maxConstraints: Int = 100_000,
                maxSessions: Int = 10_000, maxResidentSessions: Int = 0, maxResidentBytes: Int = 0,
                sessionIdleTimeoutSeconds: Double = 900,
                corsOrigins: [String] = [], maxJSONDepth: Int = 64,
                maxSubscribersPerSession: Int = 100, maxSubscribers: Int = 1_000, expensiveBytes: Int = 64 << 10,
                clock: @escaping @Sendable () -> Double = APIConfiguration.monotonicSeconds) {
        self.maxBodyBytes = maxBodyBytes
        self.maxViews = maxViews
        self.maxConstraints = maxConstraints
        self.maxSessions = maxSessions
        self.maxResidentSessions = maxResidentSessions
        self.maxResidentBytes = maxResidentBytes
        self.sessionIdleTimeoutSeconds = sessionIdleTimeoutSeconds
        self.corsOrigins = corsOrigins
        self.maxJSONDepth = maxJSONDepth
        self.maxSubscribersPerSession = maxSubscribersPerSession
        self.maxSubscribers = maxSubscribers
        self.expensiveBytes = expensiveBytes
        self.clock = clock
    }

    /// The document limits these settings imply (number magnitudes keep the model's default).
    public var documentLimits: DocumentLimits {
        DocumentLimits(maxViews: maxViews, maxConstraints: maxConstraints)
    }

    private static let epoch = MonotonicTime.now

    /// Seconds since the process first asked, on `ContinuousClock`'s clock (read as integers:
    /// every request asks).
    @Sendable public static func monotonicSeconds() -> Double {
        Double(MonotonicTime.now - epoch) / 1e9
    }
}
