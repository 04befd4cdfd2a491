import LayoutAPI
import Primitives
import Telemetry

/// Requests by route, method and status, their latency by route, and bytes in and out: counted on
/// the request path by array index into `ShardedCounters` (one relaxed atomic add each on the
/// calling thread's own shard; no lock, no string made), written as text only when scraped.
///
/// Latency is what the access log measures: from the handler's call to the answer being ready
/// (an offloaded answer's wait for a thread included, the network not).
final class HTTPMetrics: Sendable {
    static let methods = ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS", "other"]
    /// Every status the API answers, then `other` (a status outside the list; none today).
    static let statuses = [200, 201, 204, 206, 304, 400, 401, 403, 404, 405, 406, 409, 411, 412, 413, 414, 415, 422, 428,
                           429, 431, 500, 501, 503, 505]
    private static let routes = RouteName.allCases.count
    // Literals (checked against the lists in `init`): a constant needs no initialisation check on
    // the request path.
    private static let methodCount = 8
    private static let statusSlots = 26

    // Layout of the counters: requests[route][method][status], then per route a histogram, then bytes.
    private static let requestCounters = routes * methods.count * statusSlots
    private static let histograms = requestCounters
    private static let bytesIn = histograms + routes * LatencyBuckets.countersPerHistogram
    private static let bytesOut = bytesIn + 1
    private static let total = bytesOut + 1

    private let counters = ShardedCounters(count: HTTPMetrics.total)

    init() {
        precondition(Self.methods.count == Self.methodCount && Self.statuses.count + 1 == Self.statusSlots)
    }

    @inline(__always)
    static func methodIndex(_ method: String) -> Int {
        switch method {
        case "GET": return 0
        case "HEAD": return 1
        case "POST": return 2
        case "PUT": return 3
        case "PATCH": return 4
        case "DELETE": return 5
        case "OPTIONS": return 6
        default: return 7
        }
    }

    @inline(__always)
    static func statusIndex(_ status: Int) -> Int {
        switch status {
        case 200: return 0
        case 201: return 1
        case 204: return 2
        case 206: return 3
        case 304: return 4
        case 400: return 5
        case 401: return 6
        case 403: return 7
        case 404: return 8
        case 405: return 9
        case 406: return 10
        case 409: return 11
        case 411: return 12
        case 412: return 13
        case 413: return 14
        case 414: return 15
        case 415: return 16
        case 422: return 17
        case 428: return 18
        case 429: return 19
        case 431: return 20
        case 500: return 21
        case 501: return 22
        case 503: return 23
        case 505: return 24
        default: return statusSlots - 1
        }
    }

    /// One answered request.
    @inline(__always)
    func record(route: RouteName, method: String, status: Int, bytesIn: Int, bytesOut: Int, nanoseconds: Int64) {
        let r = route.rawValue
        let index = (r &* Self.methodCount &+ Self.methodIndex(method)) &* Self.statusSlots &+ Self.statusIndex(status)
        counters.withShard { s in
            s.add(index)
            LatencyBuckets.observe(nanoseconds, into: s, at: Self.histograms &+ r &* LatencyBuckets.countersPerHistogram)
            if bytesIn > 0 { s.add(Self.bytesIn, UInt64(bytesIn)) }
            if bytesOut > 0 { s.add(Self.bytesOut, UInt64(bytesOut)) }
        }
    }

    /// The families, with only the series that occurred (a label combination appears once it has
    /// been seen, as client libraries do).
    func write(to out: inout PrometheusText) {
        let values = counters.values()
        out.family("layoutd_http_requests_total", .counter, help: "HTTP requests answered, by route, method and status.")
        for route in RouteName.allCases {
            for (m, method) in Self.methods.enumerated() {
                for s in 0 ..< Self.statusSlots {
                    let value = values[(route.rawValue * Self.methods.count + m) * Self.statusSlots + s]
                    guard value > 0 else { continue }
                    let status = s < Self.statuses.count ? String(Self.statuses[s]) : "other"
                    out.sample("layoutd_http_requests_total",
                               [("route", route.label), ("method", method), ("status", status)], value)
                }
            }
        }
        out.family("layoutd_http_request_duration_seconds", .histogram,
                   help: "Time to produce an answer, by route (an offloaded answer's wait for a thread included).")
        for route in RouteName.allCases {
            let first = Self.histograms + route.rawValue * LatencyBuckets.countersPerHistogram
            let slice = values[first ..< first + LatencyBuckets.countersPerHistogram]
            guard slice.dropLast().contains(where: { $0 > 0 }) else { continue }
            out.histogram("layoutd_http_request_duration_seconds", [("route", route.label)], counters: slice)
        }
        out.single("layoutd_http_request_body_bytes_total", .counter, help: "Request body bytes received.",
                   Double(values[Self.bytesIn]))
        out.single("layoutd_http_response_body_bytes_total", .counter,
                   help: "Response body bytes sent (HEAD answers and event streams count none).",
                   Double(values[Self.bytesOut]))
    }
}
