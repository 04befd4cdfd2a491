"""The floor a cold solve is measured against (issue 32): parsing the bundle's document text with
orjson.loads (json.loads when orjson is missing: then "parser" says so), p50 over repetitions, as
one JSON line. The text is the document written compactly, as layout-bench writes it."""
import json
import sys
import time

try:
    import orjson
    loads, parser = orjson.loads, "orjson.loads"
except ImportError:  # pip install orjson
    loads, parser = json.loads, "json.loads (orjson is not installed)"

bundle = json.load(open(sys.argv[1]))
text = json.dumps(bundle["document"], separators=(",", ":")).encode()
reps = 200 if len(text) < 1_000_000 else 20
samples = []
for _ in range(reps):
    t0 = time.perf_counter_ns()
    loads(text)
    samples.append((time.perf_counter_ns() - t0) / 1e6)
samples.sort()
print(json.dumps({"case": "orjson", "parser": parser, "workload": bundle["meta"]["workload"],
                  "views": bundle["meta"]["views"], "document_bytes": len(text), "reps": reps,
                  "ms_p50": samples[(reps - 1) // 2], "ms_min": samples[0]}))
