"""Documents for scripts/bench-cold-scaling (issue 32): shapes whose cold build must scale
linearly, in the bundle format of $SHARED/bench/workloads.py (layout-bench --bundle).

  python3 scripts/lib/scaling_workloads.py bundle --workload flat --views 1000 > flat-1000.json

flat        N-1 siblings under the root, each with a size and a position (constants);
deep        a chain: each view's top is the previous view's bottom + 8 (the root's bottom the last's);
distribute  rows of 10 views placed by `distribute: horizontal` helpers, each row below the last;
vfl         one long horizontal VFL chain `H:|-[v0(24)]-[v1(24)]-...->=8-|` written in pieces of
            10 views (each piece starts at the previous piece's last view), tops fixed.
"""
import argparse
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import feed_workload  # noqa: E402  (bundle_of; it finds $SHARED/bench/workloads.py)


def con(cs, cid, first, rel, second=None, constant=0.0, priority=1000):
    d = {"first": first, "relation": rel, "multiplier": 1.0, "constant": float(constant), "priority": priority}
    if second is not None:
        d["second"] = second
    cs[cid] = d


def flat(views):
    vs = {"root": {"frame": {"width": 1000.0, "height": 1000.0}}}
    cs = {}
    for i in range(views - 1):
        v = "v%d" % i
        vs[v] = {"parent": "root"}
        con(cs, v + "-l", v + ".leading", "==", "root.leading", (i * 7) % 900)
        con(cs, v + "-t", v + ".top", "==", "root.top", (i * 13) % 900)
        con(cs, v + "-w", v + ".width", "==", None, 20 + i % 50)
        con(cs, v + "-h", v + ".height", "==", None, 10 + i % 30)
    return {"views": vs, "constraints": cs}


def deep(views):
    vs = {"root": {"frame": {"width": 390.0}}}
    cs = {}
    prev = None
    for i in range(views - 1):
        v = "v%d" % i
        vs[v] = {"parent": "root"}
        con(cs, v + "-l", v + ".leading", "==", "root.leading", 8)
        con(cs, v + "-r", v + ".trailing", "==", "root.trailing", -8)
        con(cs, v + "-t", v + ".top", "==", (prev + ".bottom") if prev else "root.top", 8)
        con(cs, v + "-h", v + ".height", "==", None, 10 + i % 30)
        prev = v
    if prev:
        con(cs, "end", "root.bottom", "==", prev + ".bottom", 8)
    return {"views": vs, "constraints": cs}


def distribute(views, per_row=10):
    vs = {"root": {"frame": {"width": 390.0}}}
    cs = {}
    names = ["v%d" % i for i in range(views - 1)]
    prev_first = None
    for r in range(0, len(names), per_row):
        row = names[r:r + per_row]
        for k, v in enumerate(row):
            vs[v] = {"parent": "root"}
            con(cs, v + "-w", v + ".width", "==", None, 20 + (r + k) % 10)
            con(cs, v + "-h", v + ".height", "==", None, 16)
            if k > 0:
                con(cs, v + "-t", v + ".top", "==", row[0] + ".top")
        first = row[0]
        con(cs, first + "-l", first + ".leading", "==", "root.leading", 8)
        con(cs, first + "-t", first + ".top", "==", (prev_first + ".bottom") if prev_first else "root.top", 8)
        if len(row) > 1:
            cs["row%d" % (r // per_row)] = {"distribute": "horizontal", "spacing": 6, "views": row}
        prev_first = first
    if prev_first:
        con(cs, "end", "root.bottom", "==", prev_first + ".bottom", 8)
    return {"views": vs, "constraints": cs}


def vfl(views, piece=10):
    n = views - 1
    vs = {"root": {"frame": {"width": 32.0 * n + 100, "height": 100.0}}}
    cs = {}
    names = ["v%d" % i for i in range(n)]
    for i, v in enumerate(names):
        vs[v] = {"parent": "root"}
        con(cs, v + "-t", v + ".top", "==", "root.top", 8)
        con(cs, v + "-h", v + ".height", "==", None, 20)
    for p in range(0, n, piece):
        part = names[p:p + piece]
        body = "-".join("[%s(24)]" % v for v in part)
        head = "H:|-" if p == 0 else "H:[%s]-" % names[p - 1]
        tail = "->=8-|" if p + piece >= n else ""
        cs["h%d" % (p // piece)] = {"format": head + body + tail}
    return {"views": vs, "constraints": cs}


SHAPES = {"flat": flat, "deep": deep, "distribute": distribute, "vfl": vfl}


def bundle(workload, views, edits=200, seed=0):
    return feed_workload.bundle_of(SHAPES[workload](views), workload, edits, seed)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("command", choices=("doc", "bundle"))
    ap.add_argument("--workload", choices=sorted(SHAPES), required=True)
    ap.add_argument("--views", type=int, required=True)
    ap.add_argument("--edits", type=int, default=200)
    a = ap.parse_args(argv)
    if a.views < 2:
        ap.error("--views must be >= 2")
    if a.command == "doc":
        json.dump(SHAPES[a.workload](a.views), sys.stdout, separators=(",", ":"))
    else:
        json.dump(bundle(a.workload, a.views, a.edits), sys.stdout, separators=(",", ":"))


if __name__ == "__main__":
    main()
