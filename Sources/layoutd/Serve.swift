import ArgumentParser
import CMimalloc
import CProblemReplies
import EventHTTP
import Foundation
import LayoutAPI
import Logging
import Primitives
import SQLiteStorage
import Storage

/// `layoutd serve`: the HTTP daemon.
struct Serve: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Run the layout HTTP daemon until SIGINT or SIGTERM.",
        discussion: """
            SETTINGS come from four places, each overriding the one before: built-in defaults; \
            a JSON configuration file (--config FILE, or the file named by $LAYOUTD_CONFIG when \
            --config is not given); environment variables (LAYOUTD_ and the setting in upper snake \
            case: LAYOUTD_PORT, LAYOUTD_HOST, LAYOUTD_STORE, LAYOUTD_SYNC, LAYOUTD_MAX_BODY_BYTES, \
            ...; LAYOUTD_CORS_ORIGINS separated by commas; empty means unset); the flags below. The file is one JSON object whose keys are \
            the settings below in camelCase (host, port, threads, maxBodyBytes, maxHeaderBytes, \
            timeoutSeconds, requestDeadlineSeconds, maxConnections, shutdownGraceSeconds, backlog, logLevel, logFormat, lockDirectory, maxViews, \
            maxConstraints, maxSessions, maxResidentSessions, maxResidentBytes, sessionIdleTimeoutSeconds, maxSubscribersPerSession, \
            maxSubscribers, corsOrigins, store, sync, apiKeysFile, allowAnonymous, logFile, trustedProxies); any other key \
            is an error. corsOrigins is an array of strings; every other setting is a string or a \
            number. config/layoutd.json lists every setting with its default; --print-config \
            shows the settings in effect.

            LISTENING: once bound, layoutd writes `layoutd listening on http://HOST:PORT` to \
            its log (stderr unless --log-file; the message of a JSON line with --log-format json; \
            with --port 0 the port is the one the system picked). Each worker thread \
            runs its own event loop with its own listener on the same port (SO_REUSEPORT). A \
            lock file, LOCKDIR/layoutd-PORT.lock, keeps a second layoutd off a port that is in \
            use: it exits with status 1 and says which process holds the port.

            HTTP API (docs/http.md): HTTP/1.1 with keep-alive; JSON in and out, errors as \
            application/problem+json (RFC 9457).
              GET    /healthz                      200 {"status":"ok","sessions":N} (alive)
              GET    /readyz                       200 {"status":"ready"}, or 503 when the store does not answer or write
              GET    /metrics                      Prometheus text: requests, latency, sessions, solver, store
              POST   /v1/solve                     solve once: 200 {frames, diagnostics}
              POST   /v1/sessions                  new session, the server picks the id: 201
              PUT    /v1/sessions/{id}             create (201) or replace (200) session {id}
              GET    /v1/sessions/{id}             document, revision, frames, diagnostics
              PATCH  /v1/sessions/{id}             edit with a JSON merge patch (incremental)
              DELETE /v1/sessions/{id}             drop the session: 204
              GET    /v1/sessions/{id}/frames      revision, frames, diagnostics
              GET    /v1/sessions/{id}/events      Server-Sent Events: one per new revision
              GET    /v1/sessions/{id}/render.svg  the session drawn as SVG
              POST   /v1/render.svg                a document solved and drawn as SVG, not kept
              GET    /                             the playground (HTML, docs/web.md)
              GET    /client.js                    the JavaScript client (ES module)
            HEAD works wherever GET does, and OPTIONS on every route (204 with Allow, and CORS \
            preflights); other methods get 405 with Allow. Query parameters: \
            coordinates=absolute|relative, strict=true, frames=all|changed (PATCH). Sessions carry \
            ETag "<revision>-<generation>" (the generation is new each time an id is created); \
            If-Match takes that tag, or the bare "<revision>", and gives 412 on a stale one. Paths match exactly (a \
            trailing / is a 404), and a path not listed above answers 404.

            LIMITS: a body over --max-body-bytes answers 413 application/problem+json (a body over \
            twice that, at least 64 KiB more, is refused before it is read: a plain 413 and the \
            connection closes). A document with more than --max-views views or --max-constraints \
            constraint entries answers 422. Creating a session beyond --max-sessions answers 429 \
            (Retry-After: 60). A session that no request names for \
            --session-idle-timeout-seconds is dropped (idle sessions are swept every quarter of \
            that time, at most every 30 s; 0 keeps sessions forever). Connections silent for \
            --timeout-seconds are closed, and so are those whose request (line, headers and body) \
            has not arrived --request-deadline-seconds after its first byte. Beyond --max-connections \
            open connections, new ones wait in the backlog until one closes.

            CORS: each --cors-origin (repeat the flag for several; exact scheme://host[:port], \
            scheme://host:* for any port, e.g. http://localhost:*, or * for any origin) may call \
            the API from a browser: its requests get Access-Control-Allow-Origin and its OPTIONS \
            preflights are answered. With none, no CORS headers are sent. A refused origin is \
            logged once, at warning. Flags replace the origins of the configuration file; \
            scripts/run allows http://localhost:* and http://127.0.0.1:* by default.

            SESSION STORE (docs/operations.md): --store memory (the built-in default: nothing \
            survives a restart) or sqlite:PATH (config/layoutd.json, and so scripts/run, use \
            sqlite:data/layoutd.db; the directory is created if missing). Every change the API \
            acknowledges is in the store before its answer; a restart reads no session (each is \
            loaded on its first request) and every stored session answers as before, ETag \
            included. --sync always|everysec|never: when a change is fsynced (always: before its \
            answer, concurrent changes sharing one fsync; everysec, the default: written to the \
            OS before the answer, fsynced within a second; never: left to the OS). A store that \
            cannot be opened (corrupt, truncated, unreadable) stops the start with exit status 1 \
            and names the file. One daemon per SQLite file: serve holds an exclusive lock on PATH.lock, \
            and a second daemon on the same file exits 1 naming the file and the holder's pid. A \
            write the store refuses at run time answers 503 application/problem+json with \
            Retry-After and changes nothing; reads keep working; the node is not ready (/readyz) \
            until a probe write succeeds, and the failure is logged. \
            --store postgres://user@host:port/db (or postgresql://, any libpq URL): a database \
            shared by several nodes; tables are made at start; a server that cannot be reached \
            does not stop the start: requests that need it answer 503 until it is back. --sync \
            always sets synchronous_commit on, everysec and never set it off.

            LOGS go to stderr, or to --log-file PATH (opened again on SIGHUP, for logrotate): one \
            line per request (method, path, status, duration, request id, client address; the \
            client from X-Forwarded-For only when the peer is a --trusted-proxy) at level info, \
            plus start-up and shutdown messages; with --log-format json every line is a JSON object. Every answer carries X-Request-Id \
            (the client's when it is 1-200 visible ASCII characters, else a new one), and every \
            problem body names it as requestId.

            OPERATIONS (docs/operations.md): GET /readyz is 200 while the session store answers \
            and takes writes (probed at most once a second), else 503; GET /metrics is Prometheus text; `layoutd \
            probe` asks /readyz and exits 0 or 1 (the container image's HEALTHCHECK).

            SHUTDOWN: on SIGINT or SIGTERM layoutd stops accepting connections, lets requests in \
            flight finish (at most --shutdown-grace-seconds), then exits with status 0. A second \
            signal stops it at once.
            """
    )

    @Option(help: ArgumentHelp("Address to bind (0.0.0.0 or :: for every interface). Default: 127.0.0.1.",
                               valueName: "address"))
    var host: String?

    @Option(help: ArgumentHelp("TCP port; 0 picks a free one. Default: 8080.", valueName: "port"))
    var port: Int?

    @Option(help: ArgumentHelp("JSON configuration file (see above). Default: $LAYOUTD_CONFIG, else none.",
                               valueName: "file"))
    var config: String?

    @Option(help: ArgumentHelp("Worker threads, each with its own event loop; 0 means one per CPU but one (at least one). Default: 0.",
                               valueName: "n"))
    var threads: Int?

    @Option(help: ArgumentHelp("Largest request body accepted, in bytes; larger gets 413. Default: 1048576.",
                               valueName: "n"))
    var maxBodyBytes: Int?

    @Option(help: ArgumentHelp("Most views in one document; more gets 422. Default: 20000.", valueName: "n"))
    var maxViews: Int?

    @Option(help: ArgumentHelp("Most constraint entries in one document; more gets 422. Default: 100000.",
                               valueName: "n"))
    var maxConstraints: Int?

    @Option(help: ArgumentHelp("Most sessions held at once; creating one more gets 429. Default: 10000.",
                               valueName: "n"))
    var maxSessions: Int?

    @Option(help: ArgumentHelp(
        "Most sessions kept resident (solver in memory); the least recently used beyond sleep as their document text and are solved again on their next request. 0: no limit. Default: 1000.",
        valueName: "n"))
    var maxResidentSessions: Int?

    @Option(help: ArgumentHelp(
        "Most bytes the sessions in memory may take, estimated from their document text and their views and constraint entries; the least recently used beyond sleep (with a store, without their text). 0: no limit. Default: 1073741824 (1 GiB).",
        valueName: "bytes"))
    var maxResidentBytes: Int?

    @Option(help: ArgumentHelp(
        "Seconds after which a session no request names is dropped; 0 keeps sessions forever. Default: 900.",
        valueName: "seconds"))
    var sessionIdleTimeoutSeconds: Double?

    @Option(help: ArgumentHelp("Most open event streams on one session; one more gets 429. Default: 100.",
                               valueName: "n"))
    var maxSubscribersPerSession: Int?

    @Option(help: ArgumentHelp("Most open event streams over all sessions; one more gets 503. Default: 1000.",
                               valueName: "n"))
    var maxSubscribers: Int?

    @Option(name: .customLong("cors-origin"), help: ArgumentHelp(
        "An origin (scheme://host[:port], scheme://host:* for any port, or *) allowed to call the API from a browser; repeat for several. Default: none.",
        valueName: "origin"))
    var corsOrigins: [String] = []

    @Option(help: ArgumentHelp("Largest request line plus headers, in bytes. Default: 16384.", valueName: "n"))
    var maxHeaderBytes: Int?

    @Option(help: ArgumentHelp(
        "Seconds a connection may stay silent (idle keep-alive, slow request, client not reading) before it is closed. Default: 30.",
        valueName: "seconds"))
    var timeoutSeconds: Double?

    @Option(help: ArgumentHelp(
        "Longest a request's line, headers and body may take to arrive, from its first byte; then its connection is closed. Default: 30.",
        valueName: "seconds"))
    var requestDeadlineSeconds: Double?

    @Option(help: ArgumentHelp(
        "Most connections open at once; 0 derives it from the descriptor limit (RLIMIT_NOFILE less an eighth, at least 32, at most 10000). Default: 0.",
        valueName: "n"))
    var maxConnections: Int?

    @Option(help: ArgumentHelp(
        "On SIGINT/SIGTERM, how long open connections may take to finish. Default: 1.", valueName: "seconds"))
    var shutdownGraceSeconds: Double?

    @Option(help: ArgumentHelp("listen(2) backlog of each listener. Default: 511.", valueName: "n"))
    var backlog: Int?

    @Option(help: ArgumentHelp(
        "Least severe log level written: trace, debug, info, notice, warning, error or critical. Default: info.",
        valueName: "level"))
    var logLevel: String?

    @Option(help: ArgumentHelp("Log lines as text or json (one object a line). Default: text.", valueName: "text|json"))
    var logFormat: String?

    @Option(help: ArgumentHelp("Directory of the port lock files. Default: /tmp.", valueName: "directory"))
    var lockDirectory: String?

    @Option(help: ArgumentHelp(
        "Where sessions are kept: memory, sqlite:PATH (a SQLite file, made if missing) or postgres://URL (a shared database). Default: memory (config/layoutd.json: sqlite:data/layoutd.db).",
        valueName: "memory|sqlite:PATH|postgres://URL"))
    var store: String?

    @Option(help: ArgumentHelp(
        "When the store fsyncs an acknowledged change: always (before the answer), everysec (within a second) or never. Default: everysec.",
        valueName: "always|everysec|never"))
    var sync: String?

    @Option(name: .customLong("api-keys"), help: ArgumentHelp(
        "The API keys file (make keys with `layoutd keys new NAME --file FILE`): every /v1 request then needs Authorization: Bearer KEY; the file is read again within a second of a change and on SIGHUP. Default: none (loopback only, unless --allow-anonymous).",
        valueName: "file"))
    var apiKeys: String?

    @Option(help: ArgumentHelp(
        "Write log lines to this file (appended to, made if missing) instead of stderr; opened again on SIGHUP (logrotate). Default: none (stderr).",
        valueName: "path"))
    var logFile: String?

    @Option(name: .customLong("trusted-proxy"), help: ArgumentHelp(
        "An address or CIDR block (10.0.0.0/8, fd00::/8) of a proxy whose X-Forwarded-For names the client in the access log; repeat for several. Default: none.",
        valueName: "address"))
    var trustedProxies: [String] = []

    @Flag(help: "Serve a non-loopback --host without --api-keys: anyone who can connect may read, replace and delete any session.")
    var allowAnonymous = false

    @Flag(help: "Print the settings in effect, as JSON, and exit.")
    var printConfig = false

    func run() throws {
        let settings: DaemonConfiguration
        do {
            settings = try resolvedSettings()
        } catch let error as ConfigurationError {
            if earlyLogFormat() == .json {
                let sink = try! LogSink(format: .json)
                sink.startup(level: .error, text: "", message: error.message)
                sink.close()
                throw ExitCode.validationFailure
            }
            throw ValidationError(error.message)
        }
        if printConfig {
            print(settings.jsonText)
            return
        }

        let level = settings.swiftLogLevel
        let sink: LogSink
        do throws(LogFileError) {
            sink = try LogSink(format: settings.logFormatValue, path: settings.logFile.isEmpty ? nil : settings.logFile)
        } catch {
            // The log file is what failed: said on stderr, in the log's format.
            let stderrSink = try! LogSink(format: settings.logFormatValue)
            stderrSink.startup(level: .error, text: "layoutd: error: \(error)", message: error.description)
            stderrSink.close()
            throw ExitCode.failure
        }
        defer { sink.close() }
        LoggingSystem.bootstrap { label in SinkLogHandler(sink: sink, label: label, logLevel: level) }
        let logger = Logger(label: "layoutd")
        do {
            try serve(settings, sink: sink, logger: logger)
        } catch let error as ValidationError where sink.format == .json {
            // ArgumentParser would print it as text; the log is JSON from here on.
            sink.startup(level: .error, text: "", message: error.message)
            throw ExitCode.validationFailure
        }
    }

    /// The daemon, once its log is set up: every line from here goes through `sink`.
    private func serve(_ settings: DaemonConfiguration, sink: LogSink, logger: Logger) throws {
        let level = settings.swiftLogLevel
        /// A start-up failure: `layoutd: error: …` (text) or a JSON line, then exit status 1.
        func fail(_ message: String) -> ExitCode {
            sink.startup(level: .error, text: "layoutd: error: \(message)", message: message)
            return ExitCode.failure
        }

        // What EventHTTP takes from libevent beyond its API (struct fields, evhttp's callbacks, our
        // `evhttp_send_error` in CProblemReplies) holds only for the libevent it was written for:
        // checked before anything is opened or bound, and a failure stops the start (docs/operations.md).
        _ = layoutd_problem_replies_linked()
        let libevent = LibeventInternals.startupCheck(requireErrorReplyOverride: true,
                                                      environment: ProcessInfo.processInfo.environment)
        guard libevent.holds else {
            throw fail(libevent.message)
        }
        let transportErrors = libevent.errorReplyContentType ?? "no reply"

        let keys = try Self.openKeys(settings, logger: logger)
        defer { keys?.stop() }
        // SIGHUP: the log file opened again (logrotate), the keys file read again; both, each time.
        var hangupActions: [@Sendable () -> Void] = []
        if sink.path != nil {
            hangupActions.append { [sink, logger] in
                if let error = sink.reopen() {
                    logger.error("SIGHUP: \(error); still writing to the file opened before")
                } else {
                    logger.notice("SIGHUP: log file \(sink.path ?? "") opened again")
                }
            }
        }
        if let keys {
            // Said whether or not the file changed (KeyRing logs only a change): the operator sees the signal arrived.
            hangupActions.append { [logger, path = settings.apiKeysFile] in
                _ = keys.reload()
                logger.notice("SIGHUP: API keys file \(path) read again; \(keys.count) key(s) in effect")
            }
        }
        let hangup = HangupSignal(hangupActions)
        defer { hangup.stop() }

        // Held until the process ends (the kernel drops it then, however it ends).
        let storeLock: LockFile?
        do throws(StoreLockError) {
            storeLock = try Self.lockStore(settings)
        } catch {
            throw fail(error.message)
        }
        defer { storeLock?.release() }
        let storage: (any SessionStorage)?
        do {
            storage = try Self.openStorage(settings, logger: logger)
        } catch {
            throw fail("cannot open the session store: \(redactedStoreURL(String(describing: error)))")
        }
        defer { storage?.close() }
        let router = Router(configuration: settings, storage: storage, access: keys.map { AccessPolicy(keys: $0) },
                            onStoreEvent: { [logger] event in StoreLog.write(event, to: logger) },
                            onRefusedOrigin: { [logger] origin in logger.warning("\(Self.refusedOriginMessage(origin))") })
        let daemonMetrics = DaemonMetrics(settings: settings, storage: storage)
        defer { daemonMetrics.stop() }
        router.api.addMetricsSource { [metrics = router.metrics, tenants = router.tenantMetrics] out in
            metrics.write(to: &out)
            tenants.write(to: &out)
            ProcessMetrics.write(to: &out)
            daemonMetrics.write(to: &out)
        }
        let sweeper = settings.sweepIntervalSeconds.map { interval in
            SessionSweeper(api: router.api, intervalSeconds: interval, logger: logger)
        }
        defer { sweeper?.stop() }
        // CORS on the answers made without the API too (CProblemReplies' and EventHTTP's own).
        TransportErrorHeaders.install(router.api.cors)
        var httpConfiguration = serverConfiguration(settings, logger: logger)
        httpConfiguration.transportErrorHeaders = { [cors = router.api.cors] origin in cors.transportHeaders(origin: origin) }
        let server = HTTPServer(
            configuration: httpConfiguration,
            handler: daemonMetrics.counting(AccessLog.wrap({ router.respond(to: $0) }, sink: sink, level: level,
                                                           proxies: TrustedProxies(settings.trustedProxies))))
        daemonMetrics.attach(server.statistics)

        let port: Int
        do {
            port = try server.start()
        } catch {
            throw fail("\(error)")
        }
        let shownHost = settings.host.contains(":") ? "[\(settings.host)]" : settings.host
        let listening = "layoutd listening on http://\(shownHost):\(port)"
        sink.startup(level: .notice, text: listening, message: listening)
        logger.info("""
            serving with \(server.configuration.effectiveThreads) worker thread(s) and \(server.configuration.effectiveOffloadThreads) \
            offload thread(s) for requests of \(settings.apiConfiguration.expensiveBytes) bytes or more (body or dormant document); max body \(settings.maxBodyBytes) bytes, \
            timeout \(jsonNumber(settings.timeoutSeconds)) s; max \(settings.maxSessions) sessions (\(settings.maxResidentSessions) \
            resident), idle time-out \(jsonNumber(settings.sessionIdleTimeoutSeconds)) s; store \(settings.storeForLog) \
            (\(router.api.sessionCount) session(s), sync \(settings.sync)); CORS origins: \
            \(settings.corsOrigins.isEmpty ? "none" : settings.corsOrigins.joined(separator: " ")); \
            \(Self.accessSummary(settings, keys)); \
            allocator mimalloc \(Self.mimallocVersion); \(libevent.message); transport errors as \(transportErrors) \
            (evhttp_send_error override in effect)
            """)
        do {
            try server.run()
        } catch {
            throw fail("\(error)")
        }
        logger.info("stopped")
    }

    /// The warning for a cross-origin request the CORS settings refused (once per origin): the
    /// browser tells the page only `Failed to fetch`, so the operator's log must say what to change.
    /// The origin is a client's header (control characters were refused at the edge): cut short.
    static func refusedOriginMessage(_ origin: String) -> String {
        let shown = origin.count > 200 ? String(origin.prefix(200)) + "…" : origin
        return "refused a cross-origin request from Origin '\(shown)' (answered without Access-Control-Allow-Origin, "
            + "so the browser hides the answer from the page): it is not in the corsOrigins setting; allow it with "
            + "--cors-origin \(shown) (or LAYOUTD_CORS_ORIGINS, or corsOrigins in the configuration file; "
            + "http://localhost:* allows any port). Each refused origin is logged once"
    }

    /// Defaults, then the configuration file, then the flags; validated.
    /// "2.0.9": the malloc this process runs on (linked in; see Sources/CMimalloc).
    static var mimallocVersion: String {
        let v = Int(mi_version())
        return "\(v / 100).\(v / 10 % 10).\(v % 10)"
    }

    func resolvedSettings(environment: [String: String] = ProcessInfo.processInfo.environment) throws -> DaemonConfiguration {
        let file = config ?? environment["LAYOUTD_CONFIG"].flatMap { $0.isEmpty ? nil : $0 }
        var settings = try DaemonConfiguration.load(path: file)
        try settings.applyEnvironment(environment)
        if let host { settings.host = host }
        if let port { settings.port = port }
        if let threads { settings.threads = threads }
        if let maxBodyBytes { settings.maxBodyBytes = maxBodyBytes }
        if let maxHeaderBytes { settings.maxHeaderBytes = maxHeaderBytes }
        if let timeoutSeconds { settings.timeoutSeconds = timeoutSeconds }
        if let requestDeadlineSeconds { settings.requestDeadlineSeconds = requestDeadlineSeconds }
        if let maxConnections { settings.maxConnections = maxConnections }
        if let shutdownGraceSeconds { settings.shutdownGraceSeconds = shutdownGraceSeconds }
        if let backlog { settings.backlog = backlog }
        if let logLevel { settings.logLevel = logLevel }
        if let logFormat { settings.logFormat = logFormat }
        if let lockDirectory { settings.lockDirectory = lockDirectory }
        if let maxViews { settings.maxViews = maxViews }
        if let maxConstraints { settings.maxConstraints = maxConstraints }
        if let maxSessions { settings.maxSessions = maxSessions }
        if let maxResidentSessions { settings.maxResidentSessions = maxResidentSessions }
        if let maxResidentBytes { settings.maxResidentBytes = maxResidentBytes }
        if let maxSubscribersPerSession { settings.maxSubscribersPerSession = maxSubscribersPerSession }
        if let maxSubscribers { settings.maxSubscribers = maxSubscribers }
        if let sessionIdleTimeoutSeconds { settings.sessionIdleTimeoutSeconds = sessionIdleTimeoutSeconds }
        if !corsOrigins.isEmpty { settings.corsOrigins = corsOrigins }
        if let store { settings.store = store }
        if let sync { settings.sync = sync }
        if let apiKeys { settings.apiKeysFile = apiKeys }
        if allowAnonymous { settings.allowAnonymous = true }
        if let logFile { settings.logFile = logFile }
        if !trustedProxies.isEmpty { settings.trustedProxies = trustedProxies }
        try checkFlags(settings)
        try settings.validate()
        return settings
    }
}
