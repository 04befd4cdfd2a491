import Primitives
import CLibevent

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Answers one request. Called on the worker thread that owns the connection, one request at a
/// time per worker: a slow handler stalls every connection of its worker, so hand long work off.
public typealias HTTPHandler = @Sendable (HTTPRequest) -> HTTPResponse

/// Why a server could not start.
public enum HTTPServerError: Error, CustomStringConvertible, Sendable, Equatable {
    /// Another server holds the port (its lock file, or a plain `EADDRINUSE`).
    case portInUse(host: String, port: Int, detail: String)
    case lockFailed(path: String, detail: String)
    case cannotResolve(host: String, detail: String)
    case cannotListen(host: String, port: Int, detail: String)
    case invalidConfiguration(String)
    case libevent(String)
    case alreadyStarted

    public var description: String {
        switch self {
        case let .portInUse(_, _, detail): return detail
        case let .lockFailed(path, detail): return "cannot lock \(path): \(detail)"
        case let .cannotResolve(host, detail): return "cannot resolve host '\(host)': \(detail)"
        case let .cannotListen(host, port, detail): return "cannot listen on \(host):\(port): \(detail)"
        case let .invalidConfiguration(detail): return "invalid server configuration: \(detail)"
        case let .libevent(detail): return "libevent: \(detail)"
        case .alreadyStarted: return "the server was already started"
        }
    }
}

/// Severity of a message the server reports through ``HTTPServerConfiguration/log``.
public enum HTTPServerLogLevel: Sendable {
    case info, warning, error
}

/// A libevent (evhttp) HTTP/1.1 server: N worker threads, each with its own `event_base`, `evhttp`
/// and listener on the same address (`SO_REUSEPORT`), answering with one ``HTTPHandler``.
///
/// ```swift
/// let server = HTTPServer(configuration: config) { request in
///     HTTPResponse.json(#"{"status":"ok"}"#)
/// }
/// let port = try server.start()   // bound and listening; port 0 resolved
/// try server.run()                // blocks until SIGINT/SIGTERM or shutdown()
/// ```
///
/// Shutdown (signal or ``shutdown()``): each worker stops accepting, ends its open streams, answers
/// what is still in flight with `Connection: close`, and its loop stops as soon as its connections
/// are gone or ``HTTPServerConfiguration/shutdownGraceSeconds`` has passed; then everything is
/// freed and ``run()`` returns. A second signal stops the loops at once.
public final class HTTPServer: @unchecked Sendable {
    public let configuration: HTTPServerConfiguration
    /// Open connections, for the host's metrics.
    public let statistics = HTTPServerStatistics()
    private let handler: HTTPHandler

    private enum State { case idle, starting, started, running, finished }

    private let lock = PThreadLock()
    // Guarded by `lock`.
    private var state = State.idle
    private var shutdownRequested = false
    private var exitedWorkers = 0
    private var boundPort: Int?
    // Written in start() before any other thread exists, then read-only until run() tears down.
    private var workers: [Worker] = []
    /// Runs the handlers' offloaded work (``HTTPResponse/offloaded(_:)``); nil without offload threads.
    private var offload: OffloadPool?
    private var portLock: PortLock?
    private var controlBase: OpaquePointer?
    private var stopBell: Doorbell?
    private var workerExitBell: Doorbell?
    private var signalEvents: [OpaquePointer] = []
    // Touched on the control loop only.
    private var shutdownStarted = false

    public init(configuration: HTTPServerConfiguration = HTTPServerConfiguration(), handler: @escaping HTTPHandler) {
        self.configuration = configuration
        self.handler = handler
    }

    deinit {
        // Started but never run: release what start() took.
        if state == .started {
            for worker in workers { worker.destroyUnstarted() }
            freeControlLoop()
            portLock?.release()
        }
    }

    /// The port the server listens on once ``start()`` has returned.
    public var port: Int? { lock.withLock { boundPort } }

    /// Binds every worker's listener and takes the port lock, without serving yet (connections
    /// wait in the backlog until ``run()``). Returns the bound port, useful with port 0.
    @discardableResult
    public func start() throws -> Int {
        try lock.withLock {
            guard state == .idle else { throw HTTPServerError.alreadyStarted }
            state = .starting
        }
        do {
            let port = try bindEverything()
            let stopAtOnce = lock.withLock { () -> Bool in
                state = .started
                boundPort = port
                return shutdownRequested
            }
            if stopAtOnce { stopBell?.ring() }
            return port
        } catch {
            lock.withLock { state = .idle }
            throw error
        }
    }

    private func bindEverything() throws -> Int {
        LibeventRuntime.prepare()
        let config = configuration
        guard (0...65535).contains(config.port) else {
            throw HTTPServerError.invalidConfiguration("port \(config.port) is not in 0...65535")
        }
        guard config.timeoutSeconds > 0, config.requestDeadlineSeconds > 0, config.maxBodyBytes >= 0,
              config.maxHeaderBytes > 0, config.shutdownGraceSeconds >= 0, config.backlog > 0,
              config.maxConnections >= 0 else {
            throw HTTPServerError.invalidConfiguration(
                "timeout, request deadline, header limit and backlog must be positive; body limit, grace "
                + "and connection limit not negative")
        }
        let address = try SocketAddress.resolve(host: config.host, port: config.port)
        let count = config.effectiveThreads

        var created: [Worker] = []
        var lockHeld: PortLock?
        let pool = config.effectiveOffloadThreads > 0 ? OffloadPool(threads: config.effectiveOffloadThreads) : nil
        do {
            for index in 0..<count {
                created.append(try Worker(index: index, configuration: config, handler: handler, offload: pool,
                                          statistics: statistics, onExit: { [unowned self] in self.workerExited() }))
            }
            let port: Int
            if config.port == 0 {
                // Let the kernel pick a port for the first listener, lock that port, and put the
                // other listeners on it. In the unlikely case that another server holds the lock
                // of the port we were given, try another one.
                var attempt = 0
                while true {
                    let picked = try created[0].listen(on: address, backlog: config.backlog, host: config.host)
                    do {
                        lockHeld = try lockPort(picked)
                        port = picked
                        break
                    } catch HTTPServerError.portInUse(_, _, _) where attempt < 16 {
                        created[0].stopListening()
                        attempt += 1
                    }
                }
            } else {
                lockHeld = try lockPort(config.port)
                port = try created[0].listen(on: address, backlog: config.backlog, host: config.host)
            }
            let shared = address.withPort(port)
            for worker in created.dropFirst() {
                _ = try worker.listen(on: shared, backlog: config.backlog, host: config.host)
            }
            try makeControlLoop()
            try pool?.start()
            workers = created
            offload = pool
            portLock = lockHeld
            return port
        } catch {
            pool?.stop()
            for worker in created { worker.destroyUnstarted() }
            lockHeld?.release()
            freeControlLoop()
            throw error
        }
    }

    private func lockPort(_ port: Int) throws -> PortLock? {
        guard let directory = configuration.lockDirectory else { return nil }
        return try PortLock.acquire(directory: directory, name: configuration.lockName,
                                    host: configuration.host, port: port)
    }

    private func makeControlLoop() throws {
        guard let base = event_base_new() else { throw HTTPServerError.libevent("event_base_new failed") }
        controlBase = base
        let me = Unmanaged.passUnretained(self).toOpaque()
        stopBell = try Doorbell(base: base) { [unowned self] in controlStop(signal: nil) }
        workerExitBell = try Doorbell(base: base) { [unowned self] in controlWorkerExit() }
        if configuration.handleSignals {
            for signalNumber in [SIGINT, SIGTERM] {
                guard let event = event_new(base, signalNumber, Int16(EV_SIGNAL | EV_PERSIST), controlSignalCallback, me),
                      event_add(event, nil) == 0 else {
                    throw HTTPServerError.libevent("cannot install a handler for signal \(signalNumber)")
                }
                signalEvents.append(event)
            }
        }
    }

    private func freeControlLoop() {
        for event in signalEvents { event_free(event) }  // restores the previous signal handlers
        signalEvents = []
        stopBell?.invalidate()
        workerExitBell?.invalidate()
        stopBell = nil
        workerExitBell = nil
        if let controlBase { event_base_free(controlBase) }
        controlBase = nil
    }

    /// Serves until shutdown; calls ``start()`` first if needed. Blocks the calling thread, which
    /// runs the small control loop (signals, shutdown) while the workers serve.
    public func run() throws {
        if lock.withLock({ state == .idle }) { try start() }
        try lock.withLock {
            guard state == .started else { throw HTTPServerError.alreadyStarted }
            state = .running
        }
        if configuration.handleSignals {
            // A parent may have started us with these signals blocked (the mask survives exec);
            // the worker threads inherit this thread's mask, so unblock them here.
            var set = sigset_t()
            sigemptyset(&set)
            sigaddset(&set, SIGINT)
            sigaddset(&set, SIGTERM)
            pthread_sigmask(SIG_UNBLOCK, &set, nil)
        }
        var threads: [pthread_t] = []
        for worker in workers {
            threads.append(try spawnThread(for: worker))
        }
        if let controlBase {
            event_base_loop(controlBase, EVLOOP_NO_EXIT_ON_EMPTY)
        }
        for thread in threads { pthread_join(thread, nil) }
        // After the workers: work still running finishes (its answer is dropped with its loop).
        offload?.stop()
        offload = nil
        workers = []
        freeControlLoop()
        portLock?.release()
        portLock = nil
        lock.withLock { state = .finished }
    }

    /// Starts a graceful shutdown; ``run()`` returns once it is done. Safe from any thread, and
    /// from a handler.
    public func shutdown() {
        lock.withLock {
            shutdownRequested = true
            if state == .started || state == .running { stopBell?.ring() }
        }
    }

    private func spawnThread(for worker: Worker) throws -> pthread_t {
        let context = Unmanaged.passRetained(worker).toOpaque()
        do {
            return try startThread(workerThreadEntry, context: context)
        } catch {
            Unmanaged<Worker>.fromOpaque(context).release()
            throw error
        }
    }

    // MARK: control loop (runs on the thread inside run())

    fileprivate func controlStop(signal: Int32?) {
        if shutdownStarted {
            if signal != nil {
                report(.warning, "second signal: stopping now without waiting for connections")
                for worker in workers { worker.requestImmediateStop() }
            }
            return
        }
        shutdownStarted = true
        let why = signal.map { $0 == SIGINT ? "SIGINT" : $0 == SIGTERM ? "SIGTERM" : "signal \($0)" } ?? "shutdown()"
        report(.info, "\(why): stopping: no new connections, finishing open ones (at most \(configuration.shutdownGraceSeconds) s)")
        for worker in workers { worker.requestDrain() }
    }

    fileprivate func controlWorkerExit() {
        let allDone = lock.withLock { exitedWorkers == workers.count }
        if allDone, let controlBase { event_base_loopbreak(controlBase) }
    }

    /// Called on a worker thread after its loop ended and it freed its libevent objects.
    private func workerExited() {
        lock.withLock {
            exitedWorkers += 1
            workerExitBell?.ring()
        }
    }

    private func report(_ level: HTTPServerLogLevel, _ message: String) {
        configuration.log?(level, message)
    }
}

/// Process-wide libevent set-up, done once before the first `event_base` exists.
enum LibeventRuntime {
    private static let once: Void = {
        // No `evthread_use_pthreads()`: each base is touched by one thread, other threads ring a
        // Doorbell, so libevent's locks (a mutex around every event operation) stay off.
        // A client that goes away must not kill the process on the next write.
        signal(SIGPIPE, SIG_IGN)
    }()

    static func prepare() { _ = once }
}

// C callbacks: free functions in a non-main file, so that they are not main-actor isolated.

private func controlSignalCallback(_ fd: Int32, _ what: Int16, _ arg: UnsafeMutableRawPointer?) {
    guard let arg else { return }
    Unmanaged<HTTPServer>.fromOpaque(arg).takeUnretainedValue().controlStop(signal: fd)
}

private func workerThreadEntry(_ arg: UnsafeMutableRawPointer?) -> UnsafeMutableRawPointer? {
    guard let arg else { return nil }
    let worker = Unmanaged<Worker>.fromOpaque(arg).takeRetainedValue()
    worker.runLoop()
    return nil
}
