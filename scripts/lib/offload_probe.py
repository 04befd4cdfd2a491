#!/usr/bin/env python3
"""offload_probe.py: how long small requests wait while another connection sends large documents.

    python3 scripts/lib/offload_probe.py --port 8080 --document form.json --count 20

One thread POSTs DOCUMENT to /v1/solve COUNT times on its own keep-alive connection; meanwhile the
main thread sends GET /healthz on another connection, one at a time. Prints the small requests'
latency (p50, p99, max) and the large ones' p50. With the large solves on the worker's own loop the
small requests wait for them; offloaded (docs/http.md, "Concurrency") they do not.
Make a form of N views with: python3 -c "import sys, json; sys.path.insert(0, 'scripts/lib');
import load_work; print(json.dumps(load_work.form(N)))" > form.json
"""
import argparse
import http.client
import threading
import time


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--host", default="127.0.0.1")
    ap.add_argument("--port", type=int, default=8080)
    ap.add_argument("--document", required=True)
    ap.add_argument("--count", type=int, default=20)
    a = ap.parse_args()
    document = open(a.document, "rb").read()
    done = threading.Event()
    large, failures = [], []

    def poster():
        try:
            c = http.client.HTTPConnection(a.host, a.port, timeout=60)
            for _ in range(a.count):
                t = time.monotonic()
                c.request("POST", "/v1/solve", document, {"Content-Type": "application/json"})
                r = c.getresponse()
                r.read()
                if r.status != 200:
                    failures.append(r.status)
                    break
                large.append(time.monotonic() - t)
        finally:
            done.set()

    c = http.client.HTTPConnection(a.host, a.port, timeout=60)
    small = []
    thread = threading.Thread(target=poster)
    thread.start()
    while not done.is_set():
        t = time.monotonic()
        c.request("GET", "/healthz")
        c.getresponse().read()
        small.append(time.monotonic() - t)
    thread.join()
    if failures:
        raise SystemExit("POST /v1/solve answered %d" % failures[0])
    small.sort()
    large.sort()
    print("small: n=%d p50 %.2f ms p99 %.2f ms max %.2f ms; large: n=%d p50 %.1f ms" % (
        len(small), 1e3 * small[len(small) // 2], 1e3 * small[int(len(small) * 0.99)], 1e3 * small[-1],
        len(large), 1e3 * large[len(large) // 2]))


if __name__ == "__main__":
    main()
