#if canImport(Glibc)
import Glibc
#endif
import Synchronization

/// A fixed set of 64-bit counters that many threads add to without a lock and without sharing a
/// cache line: each thread adds to its own shard (`ThreadSlot.index` modulo the shards), and a
/// reading (the metrics scrape) sums the shards.
///
/// An addition is one relaxed atomic add on a line no other thread writes (the usual case: the
/// daemon's worker and offload threads are fewer than the shards), so it costs what a plain add
/// costs plus the lock prefix, and no thread waits for another. Threads beyond the shards share
/// one, which the atomic add keeps exact. The memory comes zeroed from `calloc`: pages of counters
/// never touched (label combinations that never occur) take no resident memory.
public final class ShardedCounters: @unchecked Sendable {
    public let count: Int
    /// Counters per shard, rounded up to whole cache lines.
    @usableFromInline let stride: Int
    @usableFromInline let base: UnsafeMutablePointer<Atomic<UInt64>>
    public static let shards = 8

    public init(count: Int) {
        precondition(count > 0)
        self.count = count
        stride = (count + 7) & ~7
        let raw = calloc(stride * Self.shards, MemoryLayout<UInt64>.stride)!
        base = raw.bindMemory(to: Atomic<UInt64>.self, capacity: stride * Self.shards)
    }

    deinit { free(base) }

    /// Adds `amount` to counter `index` (0 ..< count).
    @inlinable
    public func add(_ index: Int, _ amount: UInt64 = 1) {
        let shard = ThreadSlot.current.pointee.index & (Self.shards - 1)
        base[shard &* stride &+ index].wrappingAdd(amount, ordering: .relaxed)
    }

    /// Adds to several counters of this thread's shard with one slot lookup.
    @inlinable
    public func withShard<T>(_ body: (Shard) -> T) -> T {
        let shard = ThreadSlot.current.pointee.index & (Self.shards - 1)
        return body(Shard(base: base + shard &* stride))
    }

    public struct Shard {
        @usableFromInline let base: UnsafeMutablePointer<Atomic<UInt64>>
        @usableFromInline init(base: UnsafeMutablePointer<Atomic<UInt64>>) { self.base = base }
        @inlinable
        public func add(_ index: Int, _ amount: UInt64 = 1) {
            base[index].wrappingAdd(amount, ordering: .relaxed)
        }
    }

    /// The sum of counter `index` over the shards (a scrape; additions meanwhile may or may not be in it).
    public func value(_ index: Int) -> UInt64 {
        var total: UInt64 = 0
        for shard in 0..<Self.shards { total &+= base[shard &* stride &+ index].load(ordering: .relaxed) }
        return total
    }

    /// Every counter summed over the shards, in index order.
    public func values() -> [UInt64] {
        var totals = [UInt64](repeating: 0, count: count)
        for shard in 0..<Self.shards {
            let row = base + shard &* stride
            for i in 0..<count { totals[i] &+= row[i].load(ordering: .relaxed) }
        }
        return totals
    }
}
