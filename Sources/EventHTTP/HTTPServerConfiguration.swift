import CEventHTTPSupport

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Everything ``HTTPServer`` can be told. The defaults suit a local daemon.
public struct HTTPServerConfiguration: Sendable {
    /// Address to bind: a numeric IPv4/IPv6 address or a host name (first address found).
    public var host: String = "127.0.0.1"
    /// TCP port; 0 picks a free ephemeral port (read it back from ``HTTPServer/start()``).
    public var port: Int = 8080
    /// Worker threads, each with its own event loop and listener on the same port
    /// (`SO_REUSEPORT`); 0 means ``automaticThreads(cpus:)`` of the online CPUs.
    public var threads: Int = 0
    /// Threads that run work handlers hand off with ``HTTPResponse/offloaded(_:)``, so that a
    /// long request does not hold up the other connections of its worker. nil means one per
    /// worker or one per CPU the workers leave over, whichever is more; 0 means none (offloaded
    /// work runs on the worker).
    public var offloadThreads: Int? = nil
    /// `listen(2)` backlog of each listener.
    public var backlog: Int = 511
    /// Seconds a connection may stay silent (idle keep-alive, slow headers or body, a client not
    /// reading) before libevent closes it.
    public var timeoutSeconds: Double = 30
    /// Longest a request's line, headers and body may take to arrive, from its first byte, however
    /// steadily they trickle in; the connection of a request still incomplete then is closed
    /// without an answer. (``timeoutSeconds`` is reset by every byte: alone, one byte every few
    /// seconds holds a connection for ever.) Not applied while a request is answered or a stream runs.
    public var requestDeadlineSeconds: Double = 30
    /// Most connections open at once across the workers (each worker takes its share, rounded up);
    /// at the limit a worker stops accepting until one of its connections closes (new ones wait in
    /// the listen backlog). 0: ``automaticMaxConnections`` from the descriptor limit.
    public var maxConnections: Int = 0
    /// Largest request body accepted; a larger one is answered 413 (problem+json, CProblemReplies/ProblemReplies.c)
    /// and the connection closes.
    public var maxBodyBytes: Int = 1 << 20
    /// Largest request line plus headers accepted; larger gets a 400 (problem+json, CProblemReplies/ProblemReplies.c;
    /// libevent reports it as it reports unreadable headers, so no 431).
    public var maxHeaderBytes: Int = 16 << 10
    /// `Content-Type` of a response with a body and no `Content-Type` header of its own.
    public var defaultContentType: String = "application/json"
    /// On shutdown, how long connections still open may take to finish before the loops stop.
    public var shutdownGraceSeconds: Double = 1
    /// Directory of the lock file that keeps a second server off the same port, or nil for no lock.
    public var lockDirectory: String? = "/tmp"
    /// Lock file name prefix: the file is `<lockDirectory>/<lockName>-<port>.lock`.
    public var lockName: String = "evhttp"
    /// Whether ``HTTPServer/run()`` shuts down on SIGINT and SIGTERM. Only one running server per
    /// process may handle signals; others stop through ``HTTPServer/shutdown()``.
    public var handleSignals: Bool = true
    /// A stream whose client has not yet taken this many bytes is ended (slow consumer). 1 MiB
    /// (was 4): a subscriber that never reads costs about this much until it is dropped, so 20 of
    /// them on a 300-view form peaked at +16 MiB of RSS instead of +91 MiB (docs/robustness.md).
    public var maxStreamBufferBytes: Int = 1 << 20
    /// Receives the server's own messages: shutdown progress, a dropped response header, a
    /// stream ended for a slow consumer... Called on whichever thread noticed.
    public var log: (@Sendable (HTTPServerLogLevel, String) -> Void)? = nil
    /// Headers added to the answers the server makes without the handler (a request refused at
    /// the edge, a method it does not implement), given the request's `Origin` (nil when it has
    /// none): the daemon's CORS headers, so that a page on another origin can read those answers.
    public var transportErrorHeaders: (@Sendable (_ origin: String?) -> [(name: String, value: String)])? = nil

    public init() {}

    /// ``threads``, with 0 replaced by ``automaticThreads(cpus:)`` of ``availableCPUs``.
    public var effectiveThreads: Int {
        threads > 0 ? threads : Self.automaticThreads(cpus: Self.availableCPUs)
    }

    /// ``offloadThreads`` with nil replaced by one per worker or one per CPU the workers leave
    /// over, whichever is more. Why at least one per worker: in place, each worker solved its own
    /// long requests, as many at once as there are workers; fewer offload threads would queue
    /// them behind each other (two workers sharing one offload thread, 200-view documents: a p99
    /// of 64-67 ms against 9-10 in place, docs/load.md).
    public var effectiveOffloadThreads: Int {
        if let offloadThreads { return max(0, offloadThreads) }
        return max(effectiveThreads, Self.availableCPUs - effectiveThreads)
    }

    /// ``maxConnections``, with 0 replaced by ``automaticMaxConnections``.
    public var effectiveMaxConnections: Int {
        maxConnections > 0 ? maxConnections : Self.automaticMaxConnections
    }

    /// Each worker's share of ``effectiveMaxConnections``, rounded up.
    public var effectiveMaxConnectionsPerWorker: Int {
        let workers = max(1, effectiveThreads)
        // Rounded up without adding first: `Int.max + workers - 1` trapped (issue 27).
        let total = max(0, effectiveMaxConnections)
        return max(1, total / workers + (total % workers == 0 ? 0 : 1))
    }

    /// The soft `RLIMIT_NOFILE` less a reserve (an eighth, at least 32) for the files, pipes and
    /// sockets that are not connections, and at most 10,000: so that the cap, not `EMFILE`, is
    /// what stops new connections.
    public static var automaticMaxConnections: Int {
        var limit = rlimit()
        guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0, limit.rlim_cur != rlim_t.max else { return 10_000 }
        let soft = Int(clamping: limit.rlim_cur)
        return min(10_000, max(1, soft - max(32, soft / 8)))
    }

    /// The CPUs this process may run on (its affinity mask: `taskset`, a container's cpuset),
    /// else the online CPUs; at least one.
    public static var availableCPUs: Int { Int(layoutd_available_cpus()) }

    /// Workers for `threads: 0`: one per CPU but one, and at least one.
    ///
    /// Why not one per CPU: a worker that runs out of requests sleeps in `epoll_wait` and whoever
    /// sends the next one pays to wake it, and the process that sends (a proxy, a load client, the
    /// kernel's own network work) needs a CPU too. On a 2-CPU machine with the load client on it,
    /// one worker against two (docs/load.md, eleventh session): 21 against 26 µs of CPU a request,
    /// 47 K against 36 K requests a second, p99 1.4 against 3.7-4.3 ms. A machine that serves only
    /// remote clients may set `threads` to its CPU count.
    public static func automaticThreads(cpus: Int) -> Int { max(1, cpus - 1) }
}
