import JSON
import Primitives
import Storage
import Telemetry

/// What operators poll: `GET /metrics` (Prometheus text) and `GET /readyz` (ready for traffic).
/// `/healthz` stays "the process answers"; `/readyz` adds "and its session store is reachable".
extension LayoutAPI {
    /// Metrics the host adds to `GET /metrics` (the daemon: HTTP traffic and the process), each
    /// writing whole families. Called at scrape time only.
    public func addMetricsSource(_ source: @escaping @Sendable (inout PrometheusText) -> Void) {
        operations.sources.withLock { $0.append(source) }
    }

    /// The exposition `GET /metrics` answers: the host's families, then the API's.
    public func metricsText() -> [UInt8] {
        var out = PrometheusText()
        for source in operations.sources.withLock({ $0 }) { source(&out) }
        writeMetrics(to: &out)
        return out.bytes
    }

    func metrics() -> APIResponse {
        APIResponse(status: 200, headers: [("Content-Type", PrometheusText.contentType), ("Cache-Control", "no-store")],
                    body: metricsText())
    }

    /// 200 `{"status":"ready"}` while the store answers and takes writes (no store: always); else
    /// 503 with `Retry-After`. The store is probed at most once a second (`StoreHealth`), so a load
    /// balancer polling every second costs one cheap store call a second, whatever the pollers.
    func readyz(mayWait: Bool = true) -> APIResponse {
        guard let repository else { return .json(200, Array(#"{"status":"ready"}"#.utf8), headers: [("Cache-Control", "no-store")]) }
        if let problem = storeHealth.readiness(probing: repository, mayWait: mayWait) {
            return Problems.notReady(problem)
        }
        return .json(200, Array(#"{"status":"ready"}"#.utf8), headers: [("Cache-Control", "no-store")])
    }


    /// The API's families: sessions, event streams, solver work, the store.
    func writeMetrics(to out: inout PrometheusText) {
        let values = APIMetrics.counters.values()
        out.family("layoutd_sessions", .gauge, help: "Sessions by state: resident (solver in memory), dormant (document text only, in memory), stored (in the session store).")
        let held = registry.count, resident = min(held, registry.budgeted ? registry.residentCount : held)
        out.sample("layoutd_sessions", ["state": "resident"], Double(resident))
        out.sample("layoutd_sessions", ["state": "dormant"], Double(held - resident))
        if repository != nil { out.sample("layoutd_sessions", ["state": "stored"], Double(storedCount.cached)) }
        out.single("layoutd_resident_bytes", .gauge,
                   help: "Estimated bytes of the sessions in memory (document text, solver state per view and constraint entry), which maxResidentBytes bounds.",
                   Double(registry.memory.bytes))

        out.single("layoutd_sse_subscribers", .gauge, help: "Open event streams (GET /v1/sessions/{id}/events).",
                   Double(subscriberCount))
        out.single("layoutd_sse_events_sent_total", .counter, help: "Server-Sent Events written to open streams.",
                   Double(values[APIMetrics.eventsSent]))
        out.single("layoutd_sse_events_dropped_total", .counter,
                   help: "Server-Sent Events not written because their stream had ended.",
                   Double(values[APIMetrics.eventsDropped]))

        out.single("layoutd_solver_cold_solves_total", .counter,
                   help: "Documents solved from scratch (create, PUT, solve, render, wake of a dormant session).",
                   Double(values[APIMetrics.coldSolves]))
        out.single("layoutd_solver_edits_total", .counter, help: "Incremental edits of a live session (PATCH, PUT of an existing session).",
                   Double(values[APIMetrics.edits]))
        out.single("layoutd_solver_pivots_total", .counter, help: "Simplex pivots made by incremental edits.",
                   Double(values[APIMetrics.editPivots]))
        out.single("layoutd_solver_rebuilds_total", .counter, help: "Incremental edits that rebuilt the solver instead.",
                   Double(values[APIMetrics.editRebuilds]))
        out.single("layoutd_solver_constant_changes_total", .counter, help: "Constraint constants changed in place by edits.",
                   Double(values[APIMetrics.constantsChanged]))
        out.single("layoutd_solver_suggested_values_total", .counter, help: "Edit-variable values suggested by edits (root size changes).",
                   Double(values[APIMetrics.editsSuggested]))
        out.family("layoutd_solver_constraints_changed_total", .counter, help: "Solver constraints added or removed by edits.")
        out.sample("layoutd_solver_constraints_changed_total", ["change": "added"], Double(values[APIMetrics.constraintsAdded]))
        out.sample("layoutd_solver_constraints_changed_total", ["change": "removed"], Double(values[APIMetrics.constraintsRemoved]))

        guard repository != nil else { return }
        out.family("layoutd_store_operation_duration_seconds", .histogram, help: "Session store calls by operation, successful or not.")
        for op in StoreOperation.allCases {
            let first = APIMetrics.storeHistograms + op.rawValue * LatencyBuckets.countersPerHistogram
            out.histogram("layoutd_store_operation_duration_seconds", [("operation", op.label)],
                          counters: values[first ..< first + LatencyBuckets.countersPerHistogram])
        }
        out.family("layoutd_store_errors_total", .counter, help: "Session store calls that failed, by kind (fenced writes are not counted here).")
        for kind in StoreErrorKind.allCases {
            out.sample("layoutd_store_errors_total", [("kind", kind.label)], values[APIMetrics.storeErrors + kind.rawValue])
        }
        out.single("layoutd_store_fencing_conflicts_total", .counter,
                   help: "Session store writes fenced off because another writer changed the session first (answered 409 or retried); not errors.",
                   Double(values[APIMetrics.fencingConflicts]))
    }
}

/// The mutable part of the operator routes (a `LayoutAPI` is immutable otherwise).
final class OperationsState: Sendable {
    let sources = Locked<[@Sendable (inout PrometheusText) -> Void]>([])
}
