import Primitives
import Telemetry

/// Requests by tenant (`layoutd_tenant_requests_total{tenant, outcome}`), with access control
/// on. The label set is bounded by the keys file: a request counts only once its key was
/// recognised, and its tenant is the key's (a client cannot make up a label value).
final class TenantMetrics: Sendable {
    private struct Counts {
        var answered: UInt64 = 0
        /// Refused by the key's rate limit (429 `/problems/rate-limited`).
        var limited: UInt64 = 0
        /// Refused for what the key may not do (403).
        var forbidden: UInt64 = 0
    }

    private let counts = Locked([String: Counts]())

    func record(tenant: String, status: Int, rateLimited: Bool) {
        counts.withLock { all in
            if rateLimited {
                all[tenant, default: Counts()].limited &+= 1
            } else if status == 403 {
                all[tenant, default: Counts()].forbidden &+= 1
            } else {
                all[tenant, default: Counts()].answered &+= 1
            }
        }
    }

    func write(to out: inout PrometheusText) {
        let snapshot = counts.withLock { $0 }
        guard !snapshot.isEmpty else { return }
        out.family("layoutd_tenant_requests_total", .counter,
                   help: "Requests made with a tenant's keys: answered, refused by the key's rate limit, or forbidden.")
        for tenant in snapshot.keys.sorted() {
            let c = snapshot[tenant]!
            for (outcome, value) in [("answered", c.answered), ("rate_limited", c.limited), ("forbidden", c.forbidden)]
            where value > 0 {
                out.sample("layoutd_tenant_requests_total", [("tenant", tenant), ("outcome", outcome)], Double(value))
            }
        }
    }
}
