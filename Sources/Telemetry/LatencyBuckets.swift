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
    /// A literal (`nanoseconds.count + 2`, which a test checks): a constant needs no initialisation check.
    public static let countersPerHistogram = 19

    /// The bucket of a duration (`nanoseconds.count` for `+Inf`): comparisons with the bounds
    /// written out (reading the array costs a global's initialisation check and bounds checks on
    /// every request), most requests stopping in the first few. A test checks them against `nanoseconds`.
    @inlinable
    public static func bucket(ofNanoseconds value: Int64) -> Int {
        if value <= 1_000_000 {
            if value <= 50_000 { return 0 }
            if value <= 100_000 { return 1 }
            if value <= 250_000 { return 2 }
            if value <= 500_000 { return 3 }
            return 4
        }
        if value <= 2_500_000 { return 5 }
        if value <= 5_000_000 { return 6 }
        if value <= 10_000_000 { return 7 }
        if value <= 25_000_000 { return 8 }
        if value <= 50_000_000 { return 9 }
        if value <= 100_000_000 { return 10 }
        if value <= 250_000_000 { return 11 }
        if value <= 500_000_000 { return 12 }
        if value <= 1_000_000_000 { return 13 }
        if value <= 2_500_000_000 { return 14 }
        if value <= 5_000_000_000 { return 15 }
        if value <= 10_000_000_000 { return 16 }
        return 17
    }


    /// Records one duration into the histogram whose counters start at `first`.
    @inlinable
    public static func observe(_ value: Int64, into shard: ShardedCounters.Shard, at first: Int) {
        shard.add(first &+ bucket(ofNanoseconds: value))
        shard.add(first &+ 18, UInt64(max(0, value)))
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
