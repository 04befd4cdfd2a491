import Access
import Primitives
import Testing

/// A clock the test moves by hand.
final class FakeClock: @unchecked Sendable {
    private let now = Locked(1000.0)
    var seconds: Double { now.withLock { $0 } }
    func advance(_ s: Double) { now.withLock { $0 += s } }
}

@Suite("RateLimiter: a token bucket per key")
struct RateLimiterTests {
    @Test("a full bucket allows a burst of R, then refuses with Retry-After until a token comes back")
    func burstThenRefuse() {
        let clock = FakeClock()
        let limiter = RateLimiter(clock: { clock.seconds })
        for i in 0..<5 {
            let d = limiter.admit(name: "ci", rate: 5)
            #expect(d.allowed && d.remaining == 4 - i && d.retryAfterSeconds == 0, "request \(i): \(d)")
        }
        let refused = limiter.admit(name: "ci", rate: 5)
        #expect(!refused.allowed && refused.remaining == 0)
        #expect(refused.retryAfterSeconds == 1 && refused.resetSeconds == 1)
        // Another key has a bucket of its own.
        #expect(limiter.admit(name: "other", rate: 5).allowed)
    }

    @Test("tokens come back at R a second, never beyond R")
    func refill() {
        let clock = FakeClock()
        let limiter = RateLimiter(clock: { clock.seconds })
        for _ in 0..<4 { _ = limiter.admit(name: "k", rate: 4) }
        #expect(!limiter.admit(name: "k", rate: 4).allowed)
        clock.advance(0.2)  // 0.8 of a token
        #expect(!limiter.admit(name: "k", rate: 4).allowed)
        clock.advance(0.05)  // one token
        let d = limiter.admit(name: "k", rate: 4)
        #expect(d.allowed && d.remaining == 0 && d.resetSeconds == 1)
        clock.advance(3600)
        let full = limiter.admit(name: "k", rate: 4)
        #expect(full.allowed && full.remaining == 3, "capped at the burst: \(full)")
    }

    @Test("below one request a second: a burst of 1 and Retry-After of the whole wait")
    func slowRate() {
        let clock = FakeClock()
        let limiter = RateLimiter(clock: { clock.seconds })
        let first = limiter.admit(name: "slow", rate: 0.1)
        #expect(first.allowed && first.remaining == 0 && first.resetSeconds == 10)
        let refused = limiter.admit(name: "slow", rate: 0.1)
        #expect(!refused.allowed && refused.retryAfterSeconds == 10)
        clock.advance(4)
        #expect(limiter.admit(name: "slow", rate: 0.1).retryAfterSeconds == 6)
        clock.advance(6)
        #expect(limiter.admit(name: "slow", rate: 0.1).allowed)
    }

    @Test("refund gives back the token of a request not answered, never beyond the burst")
    func refund() {
        let clock = FakeClock()
        let limiter = RateLimiter(clock: { clock.seconds })
        #expect(limiter.admit(name: "k", rate: 2).allowed)
        #expect(limiter.admit(name: "k", rate: 2).allowed)
        #expect(!limiter.admit(name: "k", rate: 2).allowed)
        limiter.refund(name: "k")
        #expect(limiter.admit(name: "k", rate: 2).allowed)
        limiter.refund(name: "k")
        limiter.refund(name: "k")
        limiter.refund(name: "k")
        #expect(limiter.admit(name: "k", rate: 2).remaining == 1, "refunds stop at the burst")
        limiter.refund(name: "unknown")  // no bucket: nothing to give back
        #expect(limiter.admit(name: "unknown", rate: 2).remaining == 1)
    }

    @Test("a lower rate after a reload caps the tokens at once")
    func rateChange() {
        let clock = FakeClock()
        let limiter = RateLimiter(clock: { clock.seconds })
        #expect(limiter.admit(name: "k", rate: 100).remaining == 99)
        let d = limiter.admit(name: "k", rate: 2)
        #expect(d.allowed && d.remaining == 1)
    }
}
