"""Markdown table of layout-bench against kiwi_bench from the JSON lines scripts/bench-solver keeps."""
import json
import sys


def load(path):
    out = {}
    try:
        for line in open(path):
            d = json.loads(line)
            out["build" if d.get("case") in ("build", "grid") else d.get("case")] = d
    except FileNotFoundError:
        pass
    return out


def main():
    folder = sys.argv[1]
    split = sys.argv.index("--")
    workloads, sizes = sys.argv[2:split], sys.argv[split + 1:]
    rows = [("build", "build_ms_p50", "ms"), ("edit", "us_p50", "µs"), ("constant-change", "us_p50", "µs")]
    print("| workload | views | case | layoutd p50 | kiwi p50 | ratio | ops (ours/kiwi) | checksum equal |")
    print("|---|---:|---|---:|---:|---:|---|---|")
    for wl in workloads:
        for n in sizes:
            ours, kiwi = load(f"{folder}/ours-{wl}-{n}.jsonl"), load(f"{folder}/kiwi-{wl}-{n}.jsonl")
            for case, key, unit in rows:
                o, k = ours.get(case, {}), kiwi.get(case, {})
                ov, kv = o.get(key), k.get(key)
                ratio = f"{ov / kv:.3f}x" if ov is not None and kv else "n/a"
                same = "yes" if o.get("checksum") is not None and k.get("checksum") is not None and \
                    abs(o["checksum"] - k["checksum"]) <= 1e-6 * int(n) else "no"
                if case == "constant-change" and k.get("internal_errors"):
                    same += f" (kiwi: {k['internal_errors']} internal errors)"
                ops = f"{o.get('n', o.get('reps', ''))}/{k.get('n', k.get('reps', ''))}"
                fmt = lambda v: "n/a" if v is None else f"{v:.3f} {unit}"
                print(f"| {wl} | {n} | {case} | {fmt(ov)} | {fmt(kv)} | {ratio} | {ops} | {same} |")
    print()
    print("| workload | views | pipeline (parse + validate + compile + solve + encode) p50 |")
    print("|---|---:|---:|")
    for wl in workloads:
        for n in sizes:
            p = load(f"{folder}/ours-{wl}-{n}.jsonl").get("pipeline", {})
            print(f"| {wl} | {n} | {p.get('ms_p50', 'n/a')} ms |")


if __name__ == "__main__":
    main()
