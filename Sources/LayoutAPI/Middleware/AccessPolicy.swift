import Access
import Glibc

/// Access control (docs/http.md "Access control"): the keys the daemon accepts, their rate
/// limits, and the lifetime of the stream tokens it issues. Set on `APIConfiguration.access`;
/// nil leaves the API open (the daemon allows that on loopback only, or with `--allow-anonymous`).
public struct AccessPolicy: Sendable {
    /// The keys file as last read (re-read on change and on SIGHUP by its owner, the daemon).
    public let keys: KeyRing
    public let limiter: RateLimiter
    /// How long a token from `POST /v1/sessions/{id}/tokens` is good for. Short: it travels in a
    /// URL (an `EventSource` or an `<img>` cannot send a header), so it may reach a proxy's log.
    public var tokenLifetimeSeconds: Int
    /// Seconds since 1970: tokens carry their expiry as wall-clock time, so that every node of a
    /// cluster checks them alike.
    public var now: @Sendable () -> Int

    public init(keys: KeyRing, limiter: RateLimiter = RateLimiter(), tokenLifetimeSeconds: Int = 300,
                now: @escaping @Sendable () -> Int = { Int(time(nil)) }) {
        self.keys = keys
        self.limiter = limiter
        self.tokenLifetimeSeconds = tokenLifetimeSeconds
        self.now = now
    }
}

/// Who a request is made by, once access control admitted it.
struct Principal: Sendable {
    /// The key's record (its name goes to the access log and `APIResponse.keyName`; the key
    /// itself is never kept).
    let record: APIKeyRecord
    /// The request came with a stream token of the key rather than the key.
    let viaToken: Bool

    /// Whose sessions the request sees (`SessionID.key(_:tenant:)`).
    var tenant: String { record.tenant }
    /// Reads only: a read-only key, or a stream token.
    var readOnly: Bool { record.readOnly || viaToken }
}
