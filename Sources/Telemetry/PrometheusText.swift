/// Prometheus's text exposition format (version 0.0.4), written at scrape time only: the request
/// path never formats text, it adds to counters (`ShardedCounters`).
///
/// Families are written whole (`# HELP`, `# TYPE`, then their samples), as `promtool check metrics`
/// expects; label values are escaped (`\\`, `\"`, `\n`).
public struct PrometheusText {
    public private(set) var bytes: [UInt8] = []

    public static let contentType = "text/plain; version=0.0.4; charset=utf-8"

    public init() { bytes.reserveCapacity(16 << 10) }

    public enum Kind: String { case counter, gauge, histogram }

    /// Starts a family: its `# HELP` and `# TYPE` lines.
    public mutating func family(_ name: String, _ kind: Kind, help: String) {
        append("# HELP "); append(name); append(" "); append(help); append("\n")
        append("# TYPE "); append(name); append(" "); append(kind.rawValue); append("\n")
    }

    /// One sample: `name{labels} value`.
    public mutating func sample(_ name: String, _ labels: KeyValuePairs<String, String> = [:], _ value: Double) {
        sample(name, Array(labels), value)
    }

    public mutating func sample(_ name: String, _ labels: [(key: String, value: String)], _ value: Double) {
        append(name)
        appendLabels(labels)
        append(" ")
        append(Self.number(value))
        append("\n")
    }

    public mutating func sample(_ name: String, _ labels: [(key: String, value: String)], _ value: UInt64) {
        append(name)
        appendLabels(labels)
        append(" ")
        append(String(value))
        append("\n")
    }

    /// A family with one sample and no labels.
    public mutating func single(_ name: String, _ kind: Kind, help: String, _ value: Double) {
        family(name, kind, help: help)
        sample(name, [], value)
    }

    /// The samples of one histogram (its family started by the caller) from the counters
    /// `LatencyBuckets.observe` keeps: per-bucket counts made cumulative, `_sum` in seconds, `_count`.
    public mutating func histogram(_ name: String, _ labels: [(key: String, value: String)],
                                   counters: ArraySlice<UInt64>) {
        let buckets = LatencyBuckets.nanoseconds.count + 1
        var cumulative: UInt64 = 0
        for (i, label) in LatencyBuckets.labels.enumerated() {
            cumulative &+= counters[counters.startIndex + i]
            sample(name + "_bucket", labels + [("le", label)], cumulative)
        }
        sample(name + "_sum", labels, Double(counters[counters.startIndex + buckets]) / 1e9)
        sample(name + "_count", labels, cumulative)
    }

    private mutating func appendLabels(_ labels: [(key: String, value: String)]) {
        guard !labels.isEmpty else { return }
        append("{")
        for (i, label) in labels.enumerated() {
            if i > 0 { append(",") }
            append(label.key)
            append("=\"")
            for c in label.value.utf8 {
                switch c {
                case UInt8(ascii: "\\"): append("\\\\")
                case UInt8(ascii: "\""): append("\\\"")
                case UInt8(ascii: "\n"): append("\\n")
                default: bytes.append(c)
                }
            }
            append("\"")
        }
        append("}")
    }

    private mutating func append(_ text: String) { bytes.append(contentsOf: text.utf8) }

    /// A sample value: whole numbers without a fraction, others as Swift prints them (shortest
    /// round-trip), `+Inf`/`-Inf`/`NaN` as Prometheus spells them.
    static func number(_ value: Double) -> String {
        if value.isNaN { return "NaN" }
        if value.isInfinite { return value > 0 ? "+Inf" : "-Inf" }
        if value == value.rounded(), abs(value) < 1e15 { return String(Int64(value)) }
        return String(value)
    }
}
