"""Documents, edit mixes and /proc readings for the load tools (standard library only).

form(V): a settings-style form with exactly V views, the same shape as
shared/bench/workloads.py's form_grid (re-implemented here so the scripts need nothing from
outside the repository):

  root (width given, height = fitting size)
  └ content                 inset 16 from root
    └ section s<k>          stacked 20 apart; header label s<k>h (intrinsic size)
      └ row s<k>r<j>        up to 5 per section, 8 apart, height >= 44
        ├ label  …l         intrinsic size, hugging 251
        ├ field  …f         intrinsic height; leading edge shared by the section's rows
        └ button …b         intrinsic size, 16 from the row's trailing edge

Every constraint is in object form with first/relation/second/multiplier/constant/priority
written out, so a merge patch of `constant` edits an existing field.

Edit kinds (the --mix of scripts/loadtest):
  constant  {"constraints": {ID: {"constant": C0 + d}}}, ID a random constraint with a numeric
            `constant`, C0 its constant in the created document, d in {-3..3} \\ {0}
            (never cumulative, so the layout does not drift)
  resize    {"views": {ROOT: {"frame": {"width": W}}}}, W a random integer in [360, 1024],
            ROOT a view without parent whose frame has a numeric width
  toggle    {"views": {LEAF: {"hidden": true|false}}}, LEAF a random view with a parent and no
            children; each (session, leaf) flips between true and false
  frames    GET /v1/sessions/{id}/frames
  custom    the next merge patch from --patches FILE, in order, cycling
The targets (constraint ids, roots, leaves) are read from the session's canonical document
(GET /v1/sessions/{id}), so any document works whose constraints are objects with a constant.
"""
import json
import os
import random

from load_http import Req, split_request

CT_PATCH = ("Content-Type", "application/merge-patch+json")
KINDS = ("constant", "resize", "toggle", "frames", "custom")


def form(views, root_width=390.0, rows_per_section=5):
    if views < 1:
        raise ValueError("views must be >= 1")
    vs, cs = {}, {}

    def con(cid, first, rel, second=None, constant=0.0, priority=1000):
        d = {"first": first, "relation": rel}
        if second is not None:
            d["second"] = second
        d.update(multiplier=1.0, constant=float(constant), priority=priority)
        cs[cid] = d

    vs["root"] = {"frame": {"width": float(root_width)}}
    left = views - 1
    if left == 0:
        return {"views": vs, "constraints": cs}
    vs["content"] = {"parent": "root"}
    left -= 1
    for cid, a, c in (("content-l", "leading", 16), ("content-r", "trailing", -16),
                      ("content-t", "top", 16), ("content-b", "bottom", -16)):
        con(cid, "content." + a, "==", "root." + a, c)
    k = n = 0
    prev_section = None
    while left > 0:
        s = "s%d" % k
        vs[s] = {"parent": "content"}
        left -= 1
        con(s + "-l", s + ".leading", "==", "content.leading")
        con(s + "-r", s + ".trailing", "==", "content.trailing")
        if prev_section is None:
            con(s + "-t", s + ".top", "==", "content.top")
        else:
            con(s + "-t", s + ".top", "==", prev_section + ".bottom", 20)
        prev = None
        if left > 0:
            h = s + "h"
            vs[h] = {"parent": s, "intrinsicSize": {"width": float(100 + (53 * k) % 120), "height": 24.0}}
            left -= 1
            con(h + "-l", h + ".leading", "==", s + ".leading", 8)
            con(h + "-r", h + ".trailing", "<=", s + ".trailing", -8)
            con(h + "-t", h + ".top", "==", s + ".top", 8)
            prev = h
        first_field = None
        j = 0
        while left > 0 and j < rows_per_section:
            r = "%sr%d" % (s, j)
            vs[r] = {"parent": s}
            left -= 1
            con(r + "-l", r + ".leading", "==", s + ".leading")
            con(r + "-r", r + ".trailing", "==", s + ".trailing")
            con(r + "-t", r + ".top", "==", prev + ".bottom", 8)
            con(r + "-h", r + ".height", ">=", None, 44)
            lab = fld = None
            if left > 0:
                lab = r + "l"
                vs[lab] = {"parent": r, "intrinsicSize": {"width": float(48 + (29 * n) % 73), "height": 21.0},
                           "hugging": {"horizontal": 251, "vertical": 251}}
                left -= 1
                con(lab + "-l", lab + ".leading", "==", r + ".leading", 16)
                con(lab + "-y", lab + ".centerY", "==", r + ".centerY")
            if left > 0:
                fld = r + "f"
                vs[fld] = {"parent": r, "intrinsicSize": {"height": 34.0}}
                left -= 1
                con(fld + "-gap", lab + ".trailing", "<=", fld + ".leading", -8)
                if first_field is None:
                    first_field = fld
                    con(fld + "-pull", fld + ".leading", "==", lab + ".trailing", 8, priority=250)
                else:
                    con(fld + "-col", fld + ".leading", "==", first_field + ".leading")
                con(fld + "-y", fld + ".centerY", "==", r + ".centerY")
                con(fld + "-t", fld + ".top", ">=", r + ".top", 4)
                con(fld + "-w", fld + ".width", ">=", None, 44, priority=500)
            if left > 0:
                b = r + "b"
                vs[b] = {"parent": r, "intrinsicSize": {"width": float(60 + 8 * (n % 3)), "height": 30.0}}
                left -= 1
                con(b + "-l", b + ".leading", "==", fld + ".trailing", 8)
                con(b + "-r", b + ".trailing", "==", r + ".trailing", -16)
                con(b + "-y", b + ".centerY", "==", r + ".centerY")
            elif fld is not None:
                con(fld + "-r", fld + ".trailing", "==", r + ".trailing", -16)
            elif lab is not None:
                con(lab + "-r", lab + ".trailing", "<=", r + ".trailing", -16)
            prev = r
            j += 1
            n += 1
        if prev is None:
            con(s + "-b", s + ".height", "==", None, 8)
        else:
            con(s + "-b", s + ".bottom", "==", prev + ".bottom", 8)
        prev_section = s
        k += 1
    if prev_section is None:
        con("content-h", "content.height", "==", None, 0)
    else:
        con("content-end", "content.bottom", "==", prev_section + ".bottom")
    return {"views": vs, "constraints": cs}


def _keyed(entries):
    if isinstance(entries, dict):
        return entries
    out = {}
    for i, e in enumerate(entries or []):
        key = e.get("id") if isinstance(e, dict) else None
        out[key if isinstance(key, str) else "#%d" % i] = e
    return out


def _num(v):
    return isinstance(v, (int, float)) and not isinstance(v, bool)


def targets(doc):
    """What the edit kinds can touch in a (canonical) document."""
    views = _keyed(doc.get("views"))
    cons = _keyed(doc.get("constraints"))
    constants = [(cid, float(c["constant"])) for cid, c in cons.items()
                 if isinstance(c, dict) and _num(c.get("constant"))]
    roots = [(vid, float(v["frame"]["width"])) for vid, v in views.items()
             if isinstance(v, dict) and not v.get("parent") and isinstance(v.get("frame"), dict)
             and _num(v["frame"].get("width"))]
    parents = {v.get("parent") for v in views.values() if isinstance(v, dict)}
    leaves = [vid for vid, v in views.items()
              if isinstance(v, dict) and v.get("parent") and vid not in parents]
    hidden = {vid: bool(views[vid].get("hidden", False)) for vid in leaves}
    return {"constants": constants, "roots": roots, "leaves": leaves, "hidden": hidden}


def parse_mix(text):
    mix = {}
    for part in text.split(","):
        if not part.strip():
            continue
        k, _, v = part.partition("=")
        k = k.strip()
        if k not in KINDS:
            raise SystemExit("unknown mix kind %r (known: %s)" % (k, ", ".join(KINDS)))
        mix[k] = float(v or 1)
    if not mix or sum(mix.values()) <= 0:
        raise SystemExit("empty mix: %r" % text)
    return mix


def session_path(base, sid):
    return "%s/v1/sessions/%s" % (base, sid)


def _blob(body):
    """b"Content-Length: N\\r\\n\\r\\n" + body: the tail of a prebuilt PATCH request."""
    return b"Content-Length: %d\r\n\r\n%s" % (len(body), body)


class Workload:
    """Produces the mixed requests of one client process. Every body the mix can send is built
    once up front (constant: constraints x 6 deltas, resize: 665 widths, toggle: leaves x 2), so
    a request costs a few random numbers and one bytes concatenation."""

    def __init__(self, base, session_ids, tg, mix, seed=1, if_match=False, patches=None,
                 partition=None, host=b"127.0.0.1"):
        self.base, self.sids, self.tg = base, list(session_ids), tg
        self.rng = random.Random(seed)
        self.rnd = self.rng.random
        self.if_match = if_match
        self.partition = partition        # ci -> list of session ids (If-Match mode), or None
        self.rr = {}
        patches = patches or []
        kinds = [k for k in KINDS if mix.get(k, 0) > 0]
        for k in kinds:
            if k == "constant" and not tg["constants"]:
                raise SystemExit("mix has 'constant' but no constraint has a numeric constant")
            if k == "resize" and not tg["roots"]:
                raise SystemExit("mix has 'resize' but no root view has a numeric frame width")
            if k == "toggle" and not tg["leaves"]:
                raise SystemExit("mix has 'toggle' but the document has no leaf views")
            if k == "custom" and not patches:
                raise SystemExit("mix has 'custom' but no --patches were given")
        total = sum(mix[k] for k in kinds)
        # 1000-entry table: kind = table[int(random() * 1000)]
        self.table = []
        acc = 0.0
        for k in kinds:
            acc += mix[k] / total * 1000
            self.table.extend([k] * (int(round(acc)) - len(self.table)))
        while len(self.table) < 1000:
            self.table.append(kinds[-1])
        self.const_blobs = [[_blob(('{"constraints":{%s:{"constant":%r}}}' % (json.dumps(cid), c0 + d)).encode())
                             for d in (-3, -2, -1, 1, 2, 3)] for cid, c0 in tg["constants"]]
        self.resize_blobs = [_blob(('{"views":{%s:{"frame":{"width":%d}}}}' % (json.dumps(r), w)).encode())
                             for r, _ in tg["roots"] for w in range(360, 1025)]
        self.toggle_blobs = [(_blob(('{"views":{%s:{"hidden":false}}}' % json.dumps(v)).encode()),
                              _blob(('{"views":{%s:{"hidden":true}}}' % json.dumps(v)).encode()))
                             for v in tg["leaves"]]
        self.custom_blobs = [_blob(p.encode()) for p in patches]
        self.custom_i = int(self.rnd() * len(patches)) if patches else 0
        self.leaf_hidden0 = [tg["hidden"][v] for v in tg["leaves"]]
        self.hidden = {}                  # (sid, leaf index) -> bool
        self.revision = {}                # sid -> last revision seen (If-Match)
        h = host.decode() if isinstance(host, bytes) else host
        self.patch_prefix = {sid: ("PATCH %s HTTP/1.1\r\nHost: %s\r\nContent-Type: application/merge-patch+json"
                                   "\r\n" % (session_path(base, sid), h)).encode() for sid in self.sids}
        self.frames_req = {sid: ("GET %s/frames HTTP/1.1\r\nHost: %s\r\n\r\n"
                                 % (session_path(base, sid), h)).encode() for sid in self.sids}

    def pick_session(self, ci):
        if self.partition is not None:
            own = self.partition[ci]
            i = self.rr.get(ci, 0)
            self.rr[ci] = i + 1
            return own[i % len(own)]
        return self.sids[int(self.rnd() * len(self.sids))]

    def next(self, ci):
        return self.next_for(self.pick_session(ci))

    def add_session(self, sid, host="127.0.0.1"):
        """Make a session created after start-up known (scripts/soak)."""
        if sid not in self.patch_prefix:
            self.patch_prefix[sid] = ("PATCH %s HTTP/1.1\r\nHost: %s\r\nContent-Type: application/merge-patch"
                                      "+json\r\n" % (session_path(self.base, sid), host)).encode()
            self.frames_req[sid] = ("GET %s/frames HTTP/1.1\r\nHost: %s\r\n\r\n"
                                    % (session_path(self.base, sid), host)).encode()

    def next_for(self, sid):
        """The next request of the mix, on session `sid`."""
        rnd = self.rnd
        kind = self.table[int(rnd() * 1000)]
        if kind == "frames":
            return Req.prebuilt(self.frames_req[sid], "GET", kind, sid)
        if kind == "constant":
            blob = self.const_blobs[int(rnd() * len(self.const_blobs))][int(rnd() * 6)]
        elif kind == "resize":
            blob = self.resize_blobs[int(rnd() * len(self.resize_blobs))]
        elif kind == "toggle":
            li = int(rnd() * len(self.toggle_blobs))
            key = (sid, li)
            h = not self.hidden.get(key, self.leaf_hidden0[li])
            self.hidden[key] = h
            blob = self.toggle_blobs[li][h]
        else:
            blob = self.custom_blobs[self.custom_i % len(self.custom_blobs)]
            self.custom_i += 1
        prefix = self.patch_prefix[sid]
        if self.if_match and sid in self.revision:
            prefix += b'If-Match: "%d"\r\n' % self.revision[sid]
        return Req.prebuilt(prefix + blob, "PATCH", kind, sid)

    @staticmethod
    def split(req):
        """(method, path, body) of a prebuilt request (for the wrk plan)."""
        method, path, _, body = split_request(req.data)
        return method, path, body.decode()

    def on_response(self, req, status, head, body, lat):
        if self.if_match and req.session is not None:
            j = head.find(b"\r\netag:")
            if j >= 0:
                e = head.find(b"\r\n", j + 2)
                tag = head[j + 7:e].strip().strip(b"W/").strip(b'"')
                if tag.isdigit():
                    self.revision[req.session] = int(tag)


def load_patches(path):
    """Merge patches for the `custom` kind: a JSON array of objects, or one JSON object a line."""
    text = open(path).read()
    try:
        v = json.loads(text)
        items = v if isinstance(v, list) else [v]
    except ValueError:
        items = [json.loads(line) for line in text.splitlines() if line.strip()]
    out = []
    for p in items:
        if not isinstance(p, dict):
            raise SystemExit("%s: every patch must be a JSON object" % path)
        out.append(json.dumps(p, separators=(",", ":")))
    return out


# --------------------------------------------------------------------------- /proc

CLK_TCK = os.sysconf("SC_CLK_TCK")


def cpu_seconds(pid):
    """utime + stime of a process (all its threads), in seconds, from /proc/PID/stat."""
    with open("/proc/%d/stat" % pid) as f:
        rest = f.read().rsplit(")", 1)[1].split()
    return (int(rest[11]) + int(rest[12])) / CLK_TCK


def rss_kib(pid):
    with open("/proc/%d/status" % pid) as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    return 0


def fd_count(pid):
    return len(os.listdir("/proc/%d/fd" % pid))


def loadavg():
    with open("/proc/loadavg") as f:
        return f.read().split()[0]
