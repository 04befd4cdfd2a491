"""The `feed` workload (issue 32): a social feed of cells, each an avatar, a title, a time stamp
and a body, whose sizes are decided by hugging and compression priorities. Written in the bundle
format of ../shared/bench/workloads.py (read-only; its edit scripts are reused), so layout-bench
and kiwi's harness run it as they run `form` and `grid`.

  python3 scripts/lib/feed_workload.py bundle --views 1000 > feed-1000.json
  python3 scripts/lib/feed_workload.py doc --views 20

root (width given, height the fitting size) > content (inset 16) > cells c<i>, stacked (top ==
the previous cell's bottom), each holding, in this order (the last cell may stop early):
  a<i>  avatar, 40 x 40 at the cell's top leading corner + 12;
  t<i>  title, leading == avatar trailing + 8, top == cell top + 12, intrinsic width varying
        (60 .. 359) x 20: hugging 250, compression 750, so a wide title compresses;
  d<i>  time stamp, trailing == cell trailing - 12, top == title top, intrinsic (30 .. 69) x 16 with
        horizontal hugging 251 and compression 751: it keeps its size and the title gives way
        (title trailing <= time leading - 8, required);
  b<i>  body, leading == title leading, trailing == cell trailing - 12, top == title bottom + 6,
        intrinsic height 18 x (1 .. 4) lines (no intrinsic width: the text wraps).
The cell's bottom is >= each child's bottom + 12: the root height's fitting-size pull (50) makes
each cell as short as its children allow. Every size is then decided by one priority winning over
a lower one or by a bound, so the optimum is unique under strict levels and under kiwi's weights
(a title compressed by 1 costs 750 there, a cell 1 shorter saves 50): the checksums compare.
"""
import argparse
import json
import os
import sys

# The comparison programs' directory, as the scripts find it (docs/benchmarks.md, "Comparison
# programs"): $SHARED, by default `shared` next to this checkout.
SHARED = os.environ.get("SHARED") or os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "shared")
sys.path.insert(0, os.path.join(SHARED, "bench"))
import workloads  # noqa: E402  ($SHARED/bench: widths, constant_changes, counts)


def feed(views, root_width=390.0):
    """A feed document with exactly `views` views (>= 1)."""
    if views < 1:
        raise ValueError("views must be >= 1")
    vs = {"root": {"frame": {"width": float(root_width)}}}
    cs = {}

    def con(cid, first, rel, second=None, constant=0.0, priority=1000):
        d = {"first": first, "relation": rel}
        if second is not None:
            d["second"] = second
        d["multiplier"] = 1.0
        d["constant"] = float(constant)
        d["priority"] = priority
        assert cid not in cs, cid
        cs[cid] = d

    left = views - 1
    if left == 0:
        return {"views": vs, "constraints": cs}
    vs["content"] = {"parent": "root"}
    left -= 1
    con("content-l", "content.leading", "==", "root.leading", 16)
    con("content-r", "content.trailing", "==", "root.trailing", -16)
    con("content-t", "content.top", "==", "root.top", 16)
    con("content-b", "content.bottom", "==", "root.bottom", -16)
    prev = None
    i = 0
    while left > 0:
        c = "c%d" % i
        vs[c] = {"parent": "content"}
        left -= 1
        con(c + "-l", c + ".leading", "==", "content.leading", 0)
        con(c + "-r", c + ".trailing", "==", "content.trailing", 0)
        if prev is None:
            con(c + "-t", c + ".top", "==", "content.top", 0)
        else:
            con(c + "-t", c + ".top", "==", prev + ".bottom", 0)
        children = []
        if left > 0:
            a = "a%d" % i
            vs[a] = {"parent": c}
            left -= 1
            con(a + "-l", a + ".leading", "==", c + ".leading", 12)
            con(a + "-t", a + ".top", "==", c + ".top", 12)
            con(a + "-w", a + ".width", "==", None, 40)
            con(a + "-h", a + ".height", "==", None, 40)
            children.append(a)
        if left > 0:
            t = "t%d" % i
            vs[t] = {"parent": c, "intrinsicSize": {"width": float(60 + (37 * i) % 300), "height": 20.0}}
            left -= 1
            con(t + "-l", t + ".leading", "==", a + ".trailing", 8)
            con(t + "-t", t + ".top", "==", c + ".top", 12)
            con(t + "-r", t + ".trailing", "<=", c + ".trailing", -12)
            children.append(t)
        if left > 0:
            d = "d%d" % i
            vs[d] = {"parent": c, "intrinsicSize": {"width": float(30 + (7 * i) % 40), "height": 16.0},
                     "hugging": {"horizontal": 251, "vertical": 250},
                     "compressionResistance": {"horizontal": 751, "vertical": 750}}
            left -= 1
            con(d + "-r", d + ".trailing", "==", c + ".trailing", -12)
            con(d + "-t", d + ".top", "==", t + ".top", 0)
            con(d + "-gap", t + ".trailing", "<=", d + ".leading", -8)
            children.append(d)
        if left > 0:
            b = "b%d" % i
            vs[b] = {"parent": c, "intrinsicSize": {"height": float(18 * (1 + i % 4))}}
            left -= 1
            con(b + "-l", b + ".leading", "==", t + ".leading", 0)
            con(b + "-r", b + ".trailing", "==", c + ".trailing", -12)
            con(b + "-t", b + ".top", "==", t + ".bottom", 6)
            children.append(b)
        if not children:
            con(c + "-h", c + ".height", "==", None, 64)
        for ch in children:
            con("%s-%s-b" % (c, ch), c + ".bottom", ">=", ch + ".bottom", 12)
        prev = c
        i += 1
    con("content-end", "content.bottom", "==", prev + ".bottom", 0)
    return {"views": vs, "constraints": cs}


def bundle_of(doc, workload, edits, seed):
    """`doc` as a bundle of ../shared/bench/workloads.py's format (widths and constant changes
    drawn as it draws them)."""
    return {"meta": dict(workloads.counts(doc), workload=workload, seed=seed,
                         rootWidth=doc["views"]["root"]["frame"]["width"]),
            "document": doc,
            "widths": workloads.widths(edits, seed * 7919 + 1),
            "constantChanges": workloads.constant_changes(doc, edits, seed * 7919 + 2)}


def bundle(views, edits=2000, seed=0, root_width=None):
    return bundle_of(feed(views) if root_width is None else feed(views, root_width), "feed", edits, seed)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("command", choices=("doc", "bundle"))
    ap.add_argument("--views", type=int, required=True)
    ap.add_argument("--edits", type=int, default=2000)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--width", type=float)
    a = ap.parse_args(argv)
    if a.command == "doc":
        json.dump(feed(a.views) if a.width is None else feed(a.views, a.width), sys.stdout, separators=(",", ":"))
    else:
        json.dump(bundle(a.views, a.edits, a.seed, a.width), sys.stdout, separators=(",", ":"))


if __name__ == "__main__":
    main()
