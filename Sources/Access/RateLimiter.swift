import Primitives

/// The answer of `RateLimiter.admit`, with what the RateLimit headers say.
public struct RateDecision: Sendable, Equatable {
    public let allowed: Bool
    /// Whole requests left now, after this one.
    public let remaining: Int
    /// When refused: seconds until one request is allowed again (at least 1). 0 when allowed.
    public let retryAfterSeconds: Int
    /// Seconds until the bucket is full again (0 when it is full).
    public let resetSeconds: Int

    public init(allowed: Bool, remaining: Int, retryAfterSeconds: Int, resetSeconds: Int) {
        self.allowed = allowed
        self.remaining = remaining
        self.retryAfterSeconds = retryAfterSeconds
        self.resetSeconds = resetSeconds
    }
}

/// A token bucket per key name: `rate` tokens a second, holding at most `rate` (at least 1), full
/// at first; a request takes one token or is refused.
///
/// One lock around a dictionary: it is taken on every request of a key with a rate, for a lookup
/// and a few floating-point operations, far less than the request's own work; the names are
/// bounded by the keys file.
public final class RateLimiter: Sendable {
    private struct Bucket {
        var tokens: Double
        var updated: Double
        var capacity: Double
    }

    private let buckets = Locked<[String: Bucket]>([:])
    private let clock: @Sendable () -> Double

    /// `clock`: a monotonic reading in seconds (tests pass their own).
    public init(clock: @escaping @Sendable () -> Double = { MonotonicTime.now.seconds }) {
        self.clock = clock
    }

    /// Takes one token of `name`'s bucket (refilled at `rate` a second) when there is one.
    public func admit(name: String, rate: Double) -> RateDecision {
        let rate = max(rate, 1e-9)
        let capacity = max(1, rate)
        let now = clock()
        return buckets.withLock { buckets in
            // A new key starts with a full bucket; a rate changed by a reload of the keys file
            // takes effect at once, its tokens capped by the new capacity.
            var b = buckets[name] ?? Bucket(tokens: capacity, updated: now, capacity: capacity)
            b.tokens = min(capacity, b.tokens + max(0, now - b.updated) * rate)
            b.updated = now
            b.capacity = capacity
            let allowed = b.tokens >= 1
            if allowed { b.tokens -= 1 }
            buckets[name] = b
            let reset = Int(((capacity - b.tokens) / rate).rounded(.up))
            let retry = allowed ? 0 : max(1, Int(((1 - b.tokens) / rate).rounded(.up)))
            return RateDecision(allowed: allowed, remaining: Int(b.tokens.rounded(.down)),
                                retryAfterSeconds: retry, resetSeconds: max(0, reset))
        }
    }

    /// Gives back the token of a request that was not answered (the API dispatched it again).
    public func refund(name: String) {
        buckets.withLock { buckets in
            guard var b = buckets[name] else { return }
            b.tokens = min(b.capacity, b.tokens + 1)
            buckets[name] = b
        }
    }
}
