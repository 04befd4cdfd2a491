/// The upper bounds of the latency histograms, from 50 µs (a small request answered on the
/// worker) to 10 s (beyond any deadline the daemon sets), about three a decade.
public enum LatencyBuckets {
    /// Upper bounds in nanoseconds, ascending; one more bucket (`+Inf`) follows.
    public static let nanoseconds: [Int64] = [
        50_000, 100_000, 250_000, 500_000,
        1_000_000, 2_500_000, 5_000_000, 10_000_000, 25_000_000, 50_000_000,
        100_000_000, 250_000_000, 500_000_000,
        1_000_000_000, 2_500_000_000, 5_000_000_000, 10_000_000_000,
    ]

    /// The same bounds as Prometheus's `le` label values (seconds).
    public static let labels: [String] = nanoseconds.map { secondsText(nanoseconds: $0) } + ["+Inf"]

    /// Buckets (the bounds and `+Inf`) plus one counter for the sum in nanoseconds: the counters a
    /// histogram takes in a `ShardedCounters`.
    public static let countersPerHistogram = nanoseconds.count + 2

    /// The bucket of a duration (`nanoseconds.count` for `+Inf`): a scan of 17 bounds, most
    /// requests stopping in the first few.
    @inline(__always)
    public static func bucket(ofNanoseconds value: Int64) -> Int {
        var i = 0
        while i < nanoseconds.count, value > nanoseconds[i] { i &+= 1 }
        return i
    }

    /// Records one duration into the histogram whose counters start at `first`.
    @inline(__always)
    public static func observe(_ value: Int64, into shard: ShardedCounters.Shard, at first: Int) {
        shard.add(first &+ bucket(ofNanoseconds: value))
        shard.add(first &+ nanoseconds.count &+ 1, UInt64(max(0, value)))
    }

    /// `50000` → `5e-05`-free decimal text: `0.00005`.
    static func secondsText(nanoseconds value: Int64) -> String {
        var digits = String(value)
        if digits.count <= 9 { digits = String(repeating: "0", count: 10 - digits.count) + digits }
        let cut = digits.index(digits.endIndex, offsetBy: -9)
        var whole = String(digits[..<cut]), fraction = String(digits[cut...])
        while fraction.last == "0" { fraction.removeLast() }
        if whole.isEmpty { whole = "0" }
        return fraction.isEmpty ? whole : whole + "." + fraction
    }
}
