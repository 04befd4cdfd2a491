"""Phases shared by the load tools: create sessions, run a timed mixed load (optionally in
several client processes), delete sessions, summarise. Standard library only."""
import json
import multiprocessing
import sys
import time

import load_http
from load_http import Req, Tally, percentile
from load_work import Workload, cpu_seconds, session_path, targets


def session_ids(prefix, n):
    return ["%s%d" % (prefix, i) for i in range(n)]


def bulk(host, port, reqs, conns=16, timeout_s=30.0, on_response=None):
    """Send a finite list of requests over `conns` keep-alive connections; returns the Tally."""
    it = iter(reqs)

    def src(ci):
        return next(it, None)

    return load_http.run_raw(host, port, max(1, min(conns, len(reqs))), src, on_response=on_response,
                             timeout_s=timeout_s)


def create_sessions(host, port, base, sids, doc_bytes, conns=16):
    reqs = [Req("PUT", session_path(base, sid), doc_bytes, (("Content-Type", "application/json"),),
                kind="create", session=sid) for sid in sids]
    bad = []

    def on(r, status, head, body, lat):
        if status not in (200, 201):
            bad.append((r.session, status, body[:300]))

    t = bulk(host, port, reqs, conns, on_response=on)
    return t, bad


def delete_sessions(host, port, base, sids, conns=16):
    reqs = [Req("DELETE", session_path(base, sid), kind="delete", session=sid) for sid in sids]
    return bulk(host, port, reqs, conns)


def canonical_targets(host, port, base, sid, fallback_doc):
    """Targets from the session's canonical document (GET), else from the document sent."""
    try:
        status, _, body = load_http.request(host, port, "GET", session_path(base, sid))
        if status == 200:
            d = json.loads(body)
            if isinstance(d, dict) and isinstance(d.get("document"), dict):
                return targets(d["document"]), "canonical document of %s" % sid
    except (OSError, ValueError, ConnectionError):
        pass
    return targets(fallback_doc), "document as sent"


def _child(conn, host, port, wl_kwargs, conns, offset, t_rec, t_end, engine, timeout_s):
    import os
    wl = Workload(**wl_kwargs)
    mark = []

    def src(ci):
        if not mark and time.monotonic() >= t_rec:
            mark.append(time.process_time())
        return wl.next(ci + offset)

    tally = Tally(record_from=t_rec)

    def on_response(req, status, head, body, lat):
        tally.server_timing(req, head)
        wl.on_response(req, status, head, body, lat)

    load_http.ENGINES[engine](host, port, conns, src, on_response=on_response, tally=tally,
                              stop_at=t_end, timeout_s=timeout_s)
    cpu = time.process_time() - (mark[0] if mark else time.process_time())
    conn.send({"tally": tally.as_dict(), "client_cpu": cpu, "pid": os.getpid()})
    conn.close()


def run_mixed(host, port, base, sids, tg, mix, connections, duration, warmup=2.0, procs=1,
              seed=1, if_match=False, patches=None, pid=None, engine="raw", timeout_s=10.0):
    """Warm up, then a timed phase of `duration` seconds; returns a summary dict."""
    procs = max(1, min(procs, connections))
    per = [connections // procs + (1 if p < connections % procs else 0) for p in range(procs)]
    partition = None
    if if_match:
        partition = {ci: sids[ci::connections] for ci in range(connections)}
        if len(sids) < connections:
            print("warning: --if-match with fewer sessions than connections: sessions are shared, "
                  "so 412 answers are expected", file=sys.stderr)
            partition = {ci: [sids[ci % len(sids)]] for ci in range(connections)}
    t_rec = time.monotonic() + 0.2 + warmup
    t_end = t_rec + duration
    ctx = multiprocessing.get_context("fork")
    children = []
    offset = 0
    for p in range(procs):
        a, b = ctx.Pipe(duplex=False)
        kw = dict(base=base, session_ids=sids, tg=tg, mix=mix, seed=seed * 1009 + p, if_match=if_match,
                  patches=patches, partition=partition)
        pr = ctx.Process(target=_child, args=(b, host, port, kw, per[p], offset, t_rec, t_end, engine,
                                              timeout_s), daemon=True)
        pr.start()
        b.close()
        children.append((pr, a))
        offset += per[p]
    time.sleep(max(0.0, t_rec - time.monotonic()))
    c0 = cpu_seconds(pid) if pid else None
    w0 = time.monotonic()
    tally = Tally()
    client_cpu = 0.0
    for pr, a in children:
        try:
            d = a.recv() if a.poll(duration + warmup + timeout_s + 60) else None
        except EOFError:
            d = None
        pr.join(5)
        if d is None:
            tally.errors["client-crash"] += 1
            continue
        tally.merge(Tally.from_dict(d["tally"]))
        client_cpu += d["client_cpu"]
    c1 = cpu_seconds(pid) if pid else None
    w1 = time.monotonic()
    return summarize(tally, duration, server_cpu=(c1 - c0) if pid else None, client_cpu=client_cpu,
                     wall=w1 - w0)


def summarize(tally, duration, server_cpu=None, client_cpu=None, wall=None):
    n = tally.count()
    allv = sorted(v for vs in tally.lat.values() for v in vs)
    ms = lambda p: round(percentile(allv, p) * 1000, 3) if allv else None
    by_kind = {}
    for k, vs in sorted(tally.lat.items()):
        s = sorted(vs)
        by_kind[k] = {"n": len(s), "p50_ms": round(percentile(s, 50) * 1000, 3),
                      "p99_ms": round(percentile(s, 99) * 1000, 3)}
        tn, sums = tally.timing.get(k, (0, {}))
        if tn:
            by_kind[k]["server_timing_ms"] = {name: round(v / tn, 4) for name, v in sums.items()}
    out = {"rps": round(n / duration, 1) if duration else None,
           "p50_ms": ms(50), "p90_ms": ms(90), "p99_ms": ms(99),
           "max_ms": round(allv[-1] * 1000, 3) if allv else None,
           "errors": dict(tally.errors), "requests": n, "duration_s": round(duration, 3),
           "server_cpu_us_per_req": round(server_cpu / n * 1e6, 2) if server_cpu is not None and n else None,
           "client_cpu_us_per_req": round(client_cpu / n * 1e6, 2) if client_cpu is not None and n else None,
           "server_cpu_s": round(server_cpu, 3) if server_cpu is not None else None,
           "status": dict(tally.status), "by_kind": by_kind, "reconnects": tally.reconnects}
    if wall is not None:
        out["measured_wall_s"] = round(wall, 3)
    return out


def print_report(s, title, out=sys.stdout):
    p = lambda *a: print(*a, file=out)
    p(title)
    p("requests %d in %.2f s = %.1f req/s" % (s["requests"], s["duration_s"], s["rps"] or 0))
    if s["requests"]:
        p("latency ms: p50 %.3f  p90 %.3f  p99 %.3f  max %.3f" % (s["p50_ms"], s["p90_ms"], s["p99_ms"],
                                                               s["max_ms"]))
    for k, v in s["by_kind"].items():
        st = v.get("server_timing_ms")
        p("  %-9s n=%-8d p50 %.3f ms  p99 %.3f ms%s" % (
            k, v["n"], v["p50_ms"], v["p99_ms"],
            ("  Server-Timing mean " + ", ".join("%s %.3f ms" % kv for kv in st.items())) if st else ""))
    p("statuses: " + (", ".join("%s=%d" % kv for kv in sorted(s["status"].items())) or "none"))
    p("errors: " + (", ".join("%s=%d" % kv for kv in sorted(s["errors"].items())) or "none"))
    if s.get("server_cpu_us_per_req") is not None:
        p("server CPU: %.3f s over %d requests = %.2f us/request" % (s["server_cpu_s"], s["requests"],
                                                                    s["server_cpu_us_per_req"]))
    if s.get("client_cpu_us_per_req") is not None:
        p("client CPU: %.2f us/request" % s["client_cpu_us_per_req"])
