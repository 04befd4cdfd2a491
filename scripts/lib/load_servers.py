"""Start, probe and stop the servers the load tools compare (layoutd, the evhttp ceiling, the
Python peer). Everything binds to 127.0.0.1. Standard library only."""
import json
import os
import signal
import socket
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SHARED = os.environ.get("SHARED", os.path.join(os.path.dirname(ROOT), "shared"))
LAYOUTD = os.path.join(ROOT, ".build", "release", "layoutd")


def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    p = s.getsockname()[1]
    s.close()
    return p


def log(msg):
    print(msg, file=sys.stderr, flush=True)


def build_layoutd():
    log("== swift build -c release --product layoutd")
    subprocess.run(["swift", "build", "-c", "release", "--product", "layoutd"], cwd=ROOT, check=True,
                   stdout=sys.stderr)


def layoutd_flags():
    """The flags this build of `layoutd serve` knows (from --help)."""
    try:
        out = subprocess.run([LAYOUTD, "serve", "--help"], capture_output=True, text=True, timeout=20).stdout
    except (OSError, subprocess.TimeoutExpired):
        return set()
    return {w.rstrip(",") for w in out.split() if w.startswith("--")}


def build_ceiling():
    out = subprocess.run(["bash", os.path.join(SHARED, "bench", "ceiling", "build.sh")], check=True,
                         capture_output=True, text=True).stdout
    return out.strip().splitlines()[-1]


def peer_available():
    return subprocess.run([sys.executable, "-c", "import kiwisolver"], capture_output=True).returncode == 0


class Server:
    def __init__(self, name, argv, port, logfile):
        self.name, self.argv, self.port = name, argv, port
        self.logfile = logfile
        self.proc = None

    @property
    def pid(self):
        return self.proc.pid

    @property
    def url(self):
        return "http://127.0.0.1:%d" % self.port

    def start(self, ready_timeout=20.0):
        self.log = open(self.logfile, "wb")
        self.proc = subprocess.Popen(self.argv, stdout=self.log, stderr=subprocess.STDOUT,
                                     start_new_session=True)
        deadline = time.monotonic() + ready_timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError("%s exited with %s at start-up; see %s" % (self.name, self.proc.returncode,
                                                                              self.logfile))
            try:
                with socket.create_connection(("127.0.0.1", self.port), timeout=0.5) as s:
                    s.sendall(b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")
                    if s.recv(64).startswith(b"HTTP/1.1"):
                        return self
            except OSError:
                pass
            time.sleep(0.1)
        self.stop()
        raise RuntimeError("%s did not answer on port %d within %.0f s" % (self.name, self.port, ready_timeout))

    def stop(self, timeout=10.0):
        """SIGTERM, wait; SIGKILL after `timeout`. Returns (seconds to exit, exit status)."""
        if self.proc is None or self.proc.poll() is not None:
            return 0.0, self.proc.returncode if self.proc else None
        t0 = time.monotonic()
        self.proc.send_signal(signal.SIGTERM)
        try:
            rc = self.proc.wait(timeout)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            rc = self.proc.wait()
        self.log.close()
        return time.monotonic() - t0, rc


def default_threads():
    """The worker count layoutd picks for `threads: 0`: one per CPU but one, at least one, the CPUs
    counted as layoutd counts them (the affinity mask: EventHTTP's `availableCPUs`)."""
    try:
        cpus = len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        cpus = os.cpu_count() or 1
    return max(1, cpus - 1)


def layoutd(port, threads=None, extra=(), logfile="/tmp/layoutd-load.log", binary=None, name="layoutd"):
    argv = [binary or LAYOUTD, "serve", "--port", str(port)]
    if threads:
        argv += ["--threads", str(threads)]
    return Server(name, argv + list(extra), port, logfile)


def ceiling(binary, port, threads=2, logfile="/tmp/ceiling-load.log"):
    return Server("ceiling", [binary, "-p", str(port), "-t", str(threads)], port, logfile)


def peer(port, logfile="/tmp/peer-load.log"):
    return Server("peer", [sys.executable, os.path.join(SHARED, "bench", "peer", "peer_server.py"),
                           "--port", str(port)], port, logfile)


def api_wired(port):
    """True when the server answers POST /v1/solve with frames."""
    body = b'{"views":{"r":{"frame":{"width":10,"height":10}}}}'
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=5) as s:
            s.sendall(b"POST /v1/solve HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n"
                      b"Content-Length: %d\r\n\r\n%s" % (len(body), body))
            data = b""
            while True:
                chunk = s.recv(65536)
                if not chunk:
                    break
                data += chunk
        head, _, rest = data.partition(b"\r\n\r\n")
        return head.startswith(b"HTTP/1.1 200") and "frames" in json.loads(rest)
    except (OSError, ValueError):
        return False
