"""Small HTTP/1.1 keep-alive load engines, standard library only (used by scripts/loadtest,
scripts/bench-http, scripts/bench-memory, scripts/soak and scripts/shutdown-under-load).

Three engines drive the same request sources:

  raw       (default) one thread, `selectors` (epoll) over C non-pipelined keep-alive sockets;
            requests are prebuilt bytes, responses are framed by Content-Length (or chunked).
  asyncio   the same over asyncio streams (one task per connection).
  threads   one thread per connection, each with an `http.client.HTTPConnection`.

On this machine kind the raw engine does the most requests per client CPU second (see
docs/load.md, "Choosing the client engine"), so it is the default.

A *source* is a callable `source(ci)` that returns the next request of connection `ci` as a
`Req`, or None when that connection has nothing more to send. Every engine calls
`on_response(req, status, head, body, latency_s)` (head: the raw header block, lower-cased)
and records outcomes in a `Tally`. Only loopback addresses are accepted.
"""
import asyncio
import collections
import http.client
import ipaddress
import select
import selectors
import socket
import threading
import time
import urllib.parse

LOOPBACK_ONLY = True


class Req:
    """One request: prebuilt bytes plus what the caller wants back in on_response."""
    __slots__ = ("data", "kind", "session", "method", "path", "body", "headers", "sent")

    def __init__(self, method, path, body=b"", headers=(), kind="", session=None, host=b"127.0.0.1"):
        self.method, self.path, self.body, self.headers = method, path, body, headers
        self.kind, self.session = kind, session
        lines = ["%s %s HTTP/1.1" % (method, path), "Host: %s" % host.decode()]
        for k, v in headers:
            lines.append("%s: %s" % (k, v))
        if body or method in ("POST", "PUT", "PATCH"):
            lines.append("Content-Length: %d" % len(body))
        self.data = ("\r\n".join(lines) + "\r\n\r\n").encode() + body
        self.sent = 0.0

    @classmethod
    def prebuilt(cls, data, method, kind, session):
        """A request whose bytes the caller has built already (the fast path of the mixes)."""
        r = cls.__new__(cls)
        r.data, r.method, r.kind, r.session, r.sent = data, method, kind, session, 0.0
        r.path = r.body = r.headers = None
        return r


def split_request(data):
    """(method, path, headers, body) of raw request bytes."""
    head, _, body = data.partition(b"\r\n\r\n")
    lines = head.decode("latin-1").split("\r\n")
    method, path, _ = lines[0].split(" ")
    headers = [tuple(x.strip() for x in l.split(":", 1)) for l in lines[1:]]
    return method, path, headers, body


def parse_url(url):
    u = urllib.parse.urlsplit(url)
    if u.scheme != "http":
        raise SystemExit("only http:// URLs are supported: %s" % url)
    host = u.hostname or "127.0.0.1"
    port = u.port or 80
    if LOOPBACK_ONLY:
        try:
            ok = ipaddress.ip_address(socket.gethostbyname(host)).is_loopback
        except OSError:
            ok = False
        if not ok:
            raise SystemExit("refusing to send load to %s: loopback addresses only" % host)
    return host, port, (u.path.rstrip("/") or "")


class Tally:
    """Counts and latencies of one engine run (only requests sent at or after `record_from`)."""

    def __init__(self, record_from=0.0):
        self.record_from = record_from
        self.lat = collections.defaultdict(list)   # kind -> [seconds]
        self.status = collections.Counter()        # "200" -> n
        self.errors = collections.Counter()        # "404" / "reset" / "timeout" / "connect" -> n
        self.reconnects = 0
        self.unrecorded = 0
        self.timing = {}                           # kind -> [n, sum of Server-Timing durations by name]

    def add(self, req, status, latency):
        if req.sent < self.record_from:
            self.unrecorded += 1
            return
        self.lat[req.kind].append(latency)
        self.status[str(status)] += 1
        if status >= 400:
            self.errors[str(status)] += 1

    def fail(self, req, what):
        if req is not None and req.sent < self.record_from:
            self.unrecorded += 1
            return
        self.errors[what] += 1
        self.status[what] += 1

    def merge(self, other):
        for k, v in other.lat.items():
            self.lat[k].extend(v)
        self.status.update(other.status)
        self.errors.update(other.errors)
        self.reconnects += other.reconnects
        self.unrecorded += other.unrecorded
        for k, (n, sums) in other.timing.items():
            mine = self.timing.setdefault(k, [0, {}])
            mine[0] += n
            for name, v in sums.items():
                mine[1][name] = mine[1].get(name, 0.0) + v

    def server_timing(self, req, head):
        """Add the Server-Timing durations (ms) of an answer to the per-kind sums."""
        if req.sent < self.record_from:
            return
        j = head.find(b"\r\nserver-timing:")
        if j < 0:
            return
        e = head.find(b"\r\n", j + 2)
        t = self.timing.setdefault(req.kind, [0, {}])
        t[0] += 1
        for part in head[j + 16:e].split(b","):
            name, _, dur = part.strip().partition(b";dur=")
            if dur:
                n = name.decode()
                t[1][n] = t[1].get(n, 0.0) + float(dur)

    def count(self):
        return sum(len(v) for v in self.lat.values())

    def as_dict(self):
        return {"lat": dict(self.lat), "status": dict(self.status), "errors": dict(self.errors),
                "reconnects": self.reconnects, "unrecorded": self.unrecorded, "timing": self.timing}

    @classmethod
    def from_dict(cls, d):
        t = cls()
        for k, v in d["lat"].items():
            t.lat[k].extend(v)
        t.status.update(d["status"])
        t.errors.update(d["errors"])
        t.reconnects, t.unrecorded = d["reconnects"], d["unrecorded"]
        t.timing = d.get("timing", {})
        return t


def percentile(sorted_values, p):
    if not sorted_values:
        return float("nan")
    i = min(len(sorted_values) - 1, max(0, int(round(p / 100.0 * len(sorted_values) + 0.5)) - 1))
    return sorted_values[i]


# --------------------------------------------------------------------------- response framing

class NeedMore(Exception):
    pass


def frame_response(buf, is_head):
    """(status, head_lower, body, consumed, close) of the first whole response in buf, or None."""
    i = buf.find(b"\r\n\r\n")
    if i < 0:
        return None
    head = bytes(buf[:i + 2]).lower()
    status = int(head[9:12])
    start = i + 4
    close = b"\r\nconnection: close" in head
    j = head.find(b"\r\ncontent-length:")
    if is_head or status in (204, 304) or 100 <= status < 200:
        n = 0
        if status < 200:       # 100 Continue and friends: skip, caller reads on
            return (status, head, b"", start, False)
    elif j >= 0:
        n = int(head[j + 17:head.find(b"\r\n", j + 2)])
    elif b"\r\ntransfer-encoding: chunked" in head:
        body = bytearray()
        pos = start
        while True:
            e = buf.find(b"\r\n", pos)
            if e < 0:
                return None
            size = int(bytes(buf[pos:e]).split(b";")[0], 16)
            if size == 0:
                t = buf.find(b"\r\n\r\n", e)
                if t < 0:
                    return None
                return (status, head, bytes(body), t + 4, close)
            if len(buf) < e + 2 + size + 2:
                return None
            body += buf[e + 2:e + 2 + size]
            pos = e + 2 + size + 2
    else:
        raise NeedMore()       # body until EOF: only with Connection: close
    if len(buf) < start + n:
        return None
    return (status, head, bytes(buf[start:start + n]), start + n, close)


def header_value(head, name):
    """Value of header `name` (lower-case bytes) in a lower-cased header block, or None."""
    j = head.find(b"\r\n" + name + b":")
    if j < 0:
        return None
    e = head.find(b"\r\n", j + 2)
    return head[j + 3 + len(name):e].strip().decode("latin-1")


# --------------------------------------------------------------------------- raw engine

def send_all(sock, data, deadline):
    """`sock.sendall(data)` for a non-blocking socket: waits for room (a request is sent whole
    at once unless the server stopped reading); socket.timeout after `deadline` (monotonic)."""
    view = memoryview(data)
    while view:
        try:
            view = view[sock.send(view):]
        except BlockingIOError:
            if time.monotonic() >= deadline:
                raise socket.timeout("send")
            waiter = select.poll()   # not select(): descriptors past 1023 are fine
            waiter.register(sock, select.POLLOUT)
            waiter.poll(1000 * min(0.05, max(0.0, deadline - time.monotonic())))


class _Conn:
    __slots__ = ("ci", "sock", "buf", "req", "done", "attempts", "retry_at", "retry_req")

    def __init__(self, ci):
        self.ci, self.sock, self.buf, self.req, self.done = ci, None, bytearray(), None, False
        self.attempts, self.retry_at, self.retry_req = 0, 0.0, None


def run_raw(host, port, conns, source, on_response=None, tally=None, stop_at=None,
            timeout_s=10.0, drain_s=10.0, connect_timeout_s=5.0):
    """Drive `conns` keep-alive connections until every source returns None or `stop_at`
    (time.monotonic) passes; then wait at most `drain_s` for the answers in flight."""
    tally = tally or Tally()
    sel = selectors.DefaultSelector()
    cs = [_Conn(ci) for ci in range(conns)]
    mono = time.monotonic
    busy = [0]          # connections with a request in flight

    def connect(c):
        try:
            s = socket.create_connection((host, port), timeout=connect_timeout_s)
        except OSError:
            tally.fail(None, "connect")
            return False
        s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        # Non-blocking: the selector says when to read, and time-outs are the loop's own. (With a
        # socket time-out, CPython polls the descriptor before every recv and send: two system
        # calls a request that the selector has already answered.)
        s.setblocking(False)
        c.sock = s
        c.buf = bytearray()
        sel.register(s, selectors.EVENT_READ, c)
        return True

    def drop(c):
        if c.sock is not None:
            sel.unregister(c.sock)
            c.sock.close()
            c.sock = None

    def finish(c, what):
        """The request in flight on c failed with `what`; the connection is dropped."""
        tally.fail(c.req, what)
        c.req = None
        busy[0] -= 1
        drop(c)

    waiting = set()     # connections waiting to retry a refused connect (without blocking the loop)

    def send_next(c, r=None):
        while True:
            if r is None:
                if c.done or (stop_at is not None and mono() >= stop_at):
                    c.done = True
                    return
                r = source(c.ci)
                if r is None:
                    c.done = True
                    return
            if c.sock is None:
                if not connect(c):
                    c.attempts += 1
                    if c.attempts >= 3 or (stop_at is not None and mono() >= stop_at):
                        c.done = True        # r was never sent
                        return
                    c.retry_at, c.retry_req = mono() + 0.05, r
                    waiting.add(c)
                    return
                c.attempts = 0
                tally.reconnects += 1
            c.req = r
            busy[0] += 1
            r.sent = mono()
            try:
                send_all(c.sock, r.data, r.sent + timeout_s)
                return
            except socket.timeout:
                finish(c, "timeout")
            except OSError:
                finish(c, "reset")
            r = None

    for c in cs:
        if not connect(c):
            c.done = True
    for c in cs:
        if not c.done:
            send_next(c)

    rbuf = bytearray(262144)
    rview = memoryview(rbuf)
    drain_deadline = None
    last_check = mono()
    while busy[0] > 0 or waiting:
        if waiting:
            now = mono()
            for c in [c for c in waiting if c.retry_at <= now]:
                waiting.discard(c)
                r, c.retry_req = c.retry_req, None
                send_next(c, r)
        for key, _ in sel.select(0.05 if busy[0] else 0.01):
            c = key.data
            if c.sock is None:
                continue
            try:
                # Into one buffer kept for the run: a fresh 256 KiB bytes object per recv is an
                # mmap, an mremap and a munmap a request (over glibc's mmap threshold).
                n = c.sock.recv_into(rbuf)
                chunk = rview[:n]
            except BlockingIOError:
                continue
            except OSError:
                chunk = None
            if not chunk:
                if c.req is not None:
                    finish(c, "reset" if chunk is None else "eof")
                else:
                    drop(c)
                send_next(c)
                continue
            c.buf += chunk
            while c.req is not None and c.buf:
                try:
                    f = frame_response(c.buf, c.req.method == "HEAD")
                except NeedMore:
                    f = None
                if f is None:
                    break
                status, head, body, used, close = f
                del c.buf[:used]
                if status < 200:
                    continue
                r = c.req
                c.req = None
                busy[0] -= 1
                lat = mono() - r.sent
                tally.add(r, status, lat)
                if on_response is not None:
                    on_response(r, status, head, body, lat)
                if close:
                    drop(c)
                send_next(c)
        now = mono()
        if now - last_check > 0.25:
            last_check = now
            if stop_at is not None and now >= stop_at and drain_deadline is None:
                drain_deadline = now + drain_s
            for c in cs:
                if c.req is not None and (now - c.req.sent > timeout_s or
                                          (drain_deadline is not None and now >= drain_deadline)):
                    finish(c, "timeout")
                    send_next(c)
    for c in cs:
        drop(c)
    sel.close()
    return tally


# --------------------------------------------------------------------------- asyncio engine

def run_asyncio(host, port, conns, source, on_response=None, tally=None, stop_at=None,
                timeout_s=10.0, drain_s=10.0):
    tally = tally or Tally()
    perf = mono = time.monotonic

    async def one(ci):
        reader = writer = None
        while True:
            if stop_at is not None and mono() >= stop_at:
                break
            r = source(ci)
            if r is None:
                break
            if writer is None:
                try:
                    reader, writer = await asyncio.open_connection(host, port)
                except OSError:
                    tally.fail(r, "connect")
                    await asyncio.sleep(0.05)
                    continue
            r.sent = perf()
            try:
                writer.write(r.data)
                head = await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), timeout_s)
                low = head[:-2].lower()
                status = int(low[9:12])
                j = low.find(b"\r\ncontent-length:")
                n = 0 if (r.method == "HEAD" or status in (204, 304) or j < 0) else \
                    int(low[j + 17:low.find(b"\r\n", j + 2)])
                body = await asyncio.wait_for(reader.readexactly(n), timeout_s) if n else b""
            except (asyncio.IncompleteReadError, ConnectionError, OSError):
                tally.fail(r, "reset")
                writer.close()
                reader = writer = None
                continue
            except asyncio.TimeoutError:
                tally.fail(r, "timeout")
                writer.close()
                reader = writer = None
                continue
            lat = perf() - r.sent
            tally.add(r, status, lat)
            if on_response is not None:
                on_response(r, status, low, body, lat)
            if b"\r\nconnection: close" in low:
                writer.close()
                reader = writer = None
        if writer is not None:
            writer.close()

    async def main():
        await asyncio.gather(*(one(ci) for ci in range(conns)))

    asyncio.run(main())
    return tally


# --------------------------------------------------------------------------- threads engine

def run_threads(host, port, conns, source, on_response=None, tally=None, stop_at=None,
                timeout_s=10.0, drain_s=10.0):
    tally = tally or Tally()
    lock = threading.Lock()
    perf = mono = time.monotonic

    def one(ci):
        hc = http.client.HTTPConnection(host, port, timeout=timeout_s)
        while True:
            if stop_at is not None and mono() >= stop_at:
                break
            with lock:
                r = source(ci)
            if r is None:
                break
            method, path, headers, body = split_request(r.data)
            headers = {k: v for k, v in headers if k.lower() not in ("host", "content-length")}
            r.sent = perf()
            try:
                hc.request(method, path, body=body or None, headers=headers)
                resp = hc.getresponse()
                body = resp.read()
                status = resp.status
                head = ("\r\n" + "\r\n".join("%s: %s" % kv for kv in resp.getheaders()) + "\r\n").lower().encode()
            except socket.timeout:
                with lock:
                    tally.fail(r, "timeout")
                hc.close()
                continue
            except (OSError, http.client.HTTPException):
                with lock:
                    tally.fail(r, "reset")
                hc.close()
                continue
            lat = perf() - r.sent
            with lock:
                tally.add(r, status, lat)
                if on_response is not None:
                    on_response(r, status, head, body, lat)
        hc.close()

    ts = [threading.Thread(target=one, args=(ci,), daemon=True) for ci in range(conns)]
    for t in ts:
        t.start()
    for t in ts:
        t.join()
    return tally


ENGINES = {"raw": run_raw, "asyncio": run_asyncio, "threads": run_threads}


# --------------------------------------------------------------------------- one-off requests

def request(host, port, method, path, body=b"", headers=(), timeout_s=10.0):
    """A single request on a fresh connection: (status, head_lower, body)."""
    out = []
    r = Req(method, path, body, headers)
    sent = [False]

    def src(ci):
        if sent[0]:
            return None
        sent[0] = True
        return r

    t = run_raw(host, port, 1, src, on_response=lambda q, s, h, b, l: out.append((s, h, b)),
                timeout_s=timeout_s)
    if not out:
        raise ConnectionError("no answer to %s %s: %s" % (method, path, dict(t.errors)))
    return out[0]
