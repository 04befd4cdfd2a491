"""Markdown tables of layout-bench against kiwi_bench, against another build of layout-bench (BASE)
and against orjson.loads, from the JSON lines scripts/bench-solver keeps. With several rounds of a
case, the lowest p50 of the rounds is shown (the round the machine's load disturbed least)."""
import json
import sys

KEYS = ("build_ms_p50", "us_p50", "ms_p50")


def load(path):
    out = {}
    try:
        for line in open(path):
            d = json.loads(line)
            case = "build" if d.get("case") in ("build", "grid") else d.get("case")
            if case == "json-parse" or case is None:
                continue
            best = out.get(case)
            key = next((k for k in KEYS if k in d), None)
            if best is None or key is None or d[key] < best.get(key, float("inf")):
                out[case] = d
    except FileNotFoundError:
        pass
    return out


def main():
    folder = sys.argv[1]
    split = sys.argv.index("--")
    workloads, sizes = sys.argv[2:split], sys.argv[split + 1:]
    rows = [("build", "build_ms_p50", "ms"), ("edit", "us_p50", "µs"), ("constant-change", "us_p50", "µs")]
    fmt = lambda v, unit: "n/a" if v is None else f"{v:.3f} {unit}"
    print("| workload | views | case | layoutd p50 | kiwi p50 | ratio | ops (ours/kiwi) | checksum equal |")
    print("|---|---:|---|---:|---:|---:|---|---|")
    for wl in workloads:
        for n in sizes:
            ours, kiwi = load(f"{folder}/ours-{wl}-{n}.jsonl"), load(f"{folder}/kiwi-{wl}-{n}.jsonl")
            if not kiwi:
                continue
            for case, key, unit in rows:
                o, k = ours.get(case, {}), kiwi.get(case, {})
                ov, kv = o.get(key), k.get(key)
                ratio = f"{ov / kv:.3f}x" if ov is not None and kv else "n/a"
                same = "yes" if o.get("checksum") is not None and k.get("checksum") is not None and \
                    abs(o["checksum"] - k["checksum"]) <= 1e-6 * int(n) else "no"
                if case == "constant-change" and k.get("internal_errors"):
                    same += f" (kiwi: {k['internal_errors']} internal errors)"
                ops = f"{o.get('n', o.get('reps', ''))}/{k.get('n', k.get('reps', ''))}"
                print(f"| {wl} | {n} | {case} | {fmt(ov, unit)} | {fmt(kv, unit)} | {ratio} | {ops} | {same} |")

    bases = {(wl, n): load(f"{folder}/base-{wl}-{n}.jsonl") for wl in workloads for n in sizes}
    if any(bases.values()):
        print()
        print("| workload | views | case | this build p50 | BASE p50 | ratio | checksum equal |")
        print("|---|---:|---|---:|---:|---:|---|")
        for wl in workloads:
            for n in sizes:
                ours, base = load(f"{folder}/ours-{wl}-{n}.jsonl"), bases[(wl, n)]
                for case, key, unit in rows + [("pipeline", "ms_p50", "ms")]:
                    o, b = ours.get(case, {}), base.get(case, {})
                    ov, bv = o.get(key), b.get(key)
                    ratio = f"{ov / bv:.3f}x" if ov is not None and bv else "n/a"
                    same = "" if case == "pipeline" else \
                        ("yes" if o.get("checksum") is not None and o.get("checksum") == b.get("checksum") else "no")
                    print(f"| {wl} | {n} | {case} | {fmt(ov, unit)} | {fmt(bv, unit)} | {ratio} | {same} |")

    print()
    print("| workload | views | pipeline (parse + validate + compile + solve + encode) p50 | orjson.loads p50 | pipeline / orjson | per-view cost vs "
          f"{sizes[0]} views |")
    print("|---|---:|---:|---:|---:|---:|")
    for wl in workloads:
        first = None
        for n in sizes:
            p = load(f"{folder}/ours-{wl}-{n}.jsonl").get("pipeline", {}).get("ms_p50")
            r = load(f"{folder}/orjson-{wl}-{n}.jsonl").get("orjson", {})
            j = r.get("ms_p50")
            if first is None and p is not None:
                first = p / int(n)
            ratio = f"{p / j:.2f}x" if p is not None and j else "n/a"
            growth = f"{(p / int(n)) / first:.2f}x" if p is not None and first else "n/a"
            parser = "" if r.get("parser", "orjson.loads") == "orjson.loads" else f" ({r['parser']})"
            print(f"| {wl} | {n} | {fmt(p, 'ms')} | {fmt(j, 'ms')}{parser} | {ratio} | {growth} |")


if __name__ == "__main__":
    main()
