#if canImport(Glibc)
import Glibc
#endif
import Synchronization

/// What each thread keeps for the counters and request ids: a small index (which shard of a
/// `ShardedCounters` it writes) and the state of its own random number generator.
///
/// Found through one process-wide pthread key (a `pthread_getspecific`, a few nanoseconds): Swift
/// has no thread-local variables, and one key for the process (not one per counter set) keeps the
/// number of keys fixed however many `LayoutAPI`s a test makes (a process has 1,024).
public struct ThreadSlot {
    /// 0, 1, 2, … in the order threads first ask; never reused (a shard may be shared by two
    /// threads, which the counters' atomic additions allow).
    public let index: Int
    @usableFromInline var random: UInt64

    /// The calling thread's slot, made on its first call.
    @inlinable
    public static var current: UnsafeMutablePointer<ThreadSlot> {
        if let p = pthread_getspecific(key) { return p.assumingMemoryBound(to: ThreadSlot.self) }
        return makeCurrent()
    }

    /// 64 random bits from the thread's own generator (splitmix64 seeded from the system's random
    /// source once per thread): no system call and no shared state per call. Not for secrets:
    /// request ids only need to be unlikely to repeat.
    @inlinable
    public static func next() -> UInt64 {
        let slot = current
        slot.pointee.random &+= 0x9E37_79B9_7F4A_7C15
        var z = slot.pointee.random
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    @usableFromInline static let key: pthread_key_t = {
        var key = pthread_key_t()
        // The slot is freed when its thread ends; its counts stay in the shards.
        pthread_key_create(&key) { p in p?.deallocate() }
        return key
    }()

    private static let nextIndex = Atomic<Int>(0)

    @usableFromInline @inline(never)
    static func makeCurrent() -> UnsafeMutablePointer<ThreadSlot> {
        let p = UnsafeMutablePointer<ThreadSlot>.allocate(capacity: 1)
        var seed = SystemRandomNumberGenerator()
        p.initialize(to: ThreadSlot(index: nextIndex.wrappingAdd(1, ordering: .relaxed).oldValue,
                                    random: seed.next()))
        pthread_setspecific(key, p)
        return p
    }
}
