import Dispatch
import JSON
import LayoutEngine
import LayoutModel
import Primitives
import Storage

/// The HTTP API of docs/http.md without sockets: one `handle` call per request.
///
/// Thread-safe: `handle` may be called concurrently from any number of threads. Requests on one
/// session are serialised by that session's lock; different sessions proceed in parallel, and
/// stateless solves share nothing. No input makes it trap, hang or answer 5xx other than the 503
/// of a create that keeps losing races, and the 503 of a write its session store refuses.
public final class LayoutAPI: Sendable {
    public let configuration: APIConfiguration
    /// The CORS of `corsOrigins`: the daemon adds its headers to the answers its transport makes
    /// without the API (`CORS.transportHeaders`).
    public let cors: CORS
    let registry: SessionRegistry
    /// The HTTP concerns around the routes, outermost first: request ids, CORS, access control.
    let middlewares: MiddlewareChain
    let limits: DocumentLimits
    /// Open event streams over all sessions (see `maxSubscribers`).
    let subscribers = Locked(0)
    /// The session store every acknowledged change is written to (issue 21); nil: sessions live
    /// in this process only (`store: memory`).
    let repository: SessionRepository?
    /// With a store: how many sessions it holds (`SessionCount`: tracked, or the shared store's
    /// own count), which is what `maxSessions` limits (the registry holds only the ones woken
    /// since the start).
    let storedCount: SessionCount
    /// With a shared store (several nodes): how many times notices were lost (`StoreNotice.lost`);
    /// a session whose `StoreHint.epoch` is behind it is checked against the store before use.
    let noticeEpoch: Locked<Int>
    /// With a shared store: notices heard, counted in 64 stripes by id (`noticeStripe`), each
    /// counted *before* the registry is looked up for its session. A read of a session compares its
    /// stripe before and after the copy enters the registry: a notice that came in between may
    /// have been for it and found no copy to mark (LayoutAPI+SharedStore.swift).
    let noticesHeard = Locked([Int](repeating: 0, count: 64))
    /// Whether other nodes write the store too (`SessionStorage.isShared`).
    let sharedStore: Bool
    /// Where sessions with subscribers catch up with writes of other nodes (`heard(_:)`), one at
    /// a time and off the store's listening thread.
    let catchUpQueue = DispatchQueue(label: "layoutd.catch-up")
    /// Operator state (`LayoutAPI+Operations.swift`): metrics added by the host.
    let operations = OperationsState()
    /// Whether the store takes writes, for `/readyz`; store failures reported to the host's log.
    let storeHealth: StoreHealth

    /// Protocol version (the `/v1` of the paths).
    public static let version = "1"

    /// - Parameter storage: where sessions are kept across restarts; nil keeps them in memory only.
    ///   Its sessions are not read here: each wakes on its first request.
    public init(configuration: APIConfiguration = APIConfiguration(), storage: (any SessionStorage)? = nil) {
        self.configuration = configuration
        // Every store is timed at this seam (`MeasuredSessionStorage`, for `GET /metrics`), and
        // its failures reach readiness and the log there (`StoreHealth`).
        let storeHealth = StoreHealth(clock: configuration.clock, report: configuration.onStoreEvent)
        self.storeHealth = storeHealth
        let storage: (any SessionStorage)? = storage.map {
            MeasuredSessionStorage($0, onFailure: { storeHealth.failed($0, $1, write: $2) })
        }
        let noticeEpoch = Locked(0)
        self.noticeEpoch = noticeEpoch
        let repository = storage.map {
            SessionRepository(storage: $0, storeClockOffset: wallClock() - configuration.clock(), noticeEpoch: noticeEpoch)
        }
        let storedCount = SessionCount(storage: storage, clock: configuration.clock)
        // With a store, the registry is a cache of stored sessions: the limit applies to the store,
        // and idle expiry of a copy only drops the copy; the store expires the session itself
        // (`sweepStored`, `expireIfIdle`: conditional on its last use by any node).
        self.registry = SessionRegistry(maxSessions: storage == nil ? configuration.maxSessions : Int.max,
                                  maxResident: configuration.maxResidentSessions,
                                  maxResidentBytes: configuration.maxResidentBytes,
                                  idleTimeout: configuration.sessionIdleTimeoutSeconds,
                                  clock: configuration.clock, copiesOnly: storage != nil,
                                  released: { [storage] id in storage?.unfollow(id) })
        let cors = CORS(origins: configuration.corsOrigins, onRefused: configuration.onRefusedOrigin)
        self.cors = cors
        var middlewares: [any APIMiddleware] = [RequestIDMiddleware(), CORSMiddleware(cors: cors)]
        if let access = configuration.access { middlewares.append(AccessControlMiddleware(policy: access)) }
        self.middlewares = MiddlewareChain(middlewares: middlewares)
        self.limits = configuration.documentLimits
        self.repository = repository
        self.storedCount = storedCount
        self.sharedStore = storage?.isShared ?? false
        if let storage, storage.isShared {
            // The API lives as long as the daemon; weak all the same, for tests that make many.
            storage.observe { [weak self] notice in self?.heard(notice) }
        }
    }

    /// Answers one request. Never traps; every failure is an `application/problem+json` 4xx.
    public func handle(_ request: APIRequest) -> APIResponse {
        var context = RequestContext(route: Route.match(request.path))
        var response = middlewares.run(request, &context) { request, context in
            respond(to: request, route: context.route, principal: context.principal)
        }
        if response.mustWait { return response }  // nothing was done: the caller asks again
        // Operator seam (issue 23): the route's metrics name on every answer.
        response.route = context.route?.name ?? .unknown
        return response
    }

    /// Expires sessions idle for longer than the time-out; returns how many. The daemon may call
    /// it on a timer (expiry also happens lazily on access). With a store, the copies idle here are
    /// dropped, the uses since the last sweep recorded, and the sessions the store says nobody used
    /// expired (`sweepStored`): those are the ones counted.
    @discardableResult
    public func sweep() -> Int {
        let dropped = registry.sweep()
        return repository == nil ? dropped : sweepStored()
    }

    /// Sessions currently held (expired ones not yet swept included).
    /// With a store, the store's count (with a shared store, as of the last second: it never waits
    /// for the store here).
    public var sessionCount: Int { repository == nil ? registry.count : storedCount.cached }

    // MARK: routing

    private func respond(to request: APIRequest, route: Route?, principal: Principal?) -> APIResponse {
        guard let route else { return Problems.routeNotFound(request.method, request.path) }
        let method = request.method
        if method == "OPTIONS" { return APIResponse(status: 204, headers: [("Allow", route.allowHeader)]) }
        guard route.allowedMethods.contains(method) else {
            return Problems.methodNotAllowed(method, request.path, route: route)
        }
        if method == "POST" || method == "PUT" || method == "PATCH", request.body.count > configuration.maxBodyBytes {
            return Problems.bodyTooLarge(request.body.count, limit: configuration.maxBodyBytes)
        }
        let options: QueryOptions
        switch QueryOptions.parse(request.query) {
        case .success(let o): options = o
        case .failure(let invalid): return Problems.invalidQuery(invalid)
        }
        // An id that breaks the id rules names no session (no PUT could have made it), and it may
        // hold a `/` (`%2F`), which keys reserve for tenants (`SessionID.key`).
        if let id = route.sessionID, !SessionID.isValid(id) {
            return method == "PUT" ? Problems.invalidSessionID(id) : Problems.sessionNotFound(id, raw: true)
        }
        // From here on, ids are the tenant's keys for them: a tenant reaches only its own sessions.
        switch route.scoped(to: principal?.tenant) {
        case .healthz:
            return healthz()
        case .solve:
            return solve(request, options)
        case .sessions:
            return createSession(request, options, principal)
        case .session(let id):
            switch method {
            case "PUT": return putSession(id, request, options, principal)
            case "PATCH": return patchSession(id, request, options)
            case "DELETE": return deleteSession(id, request)
            default: return getSession(id, request, options, withDocument: true)
            }
        case .sessionFrames(let id):
            return getSession(id, request, options, withDocument: false)
        case .sessionEvents(let id):
            return sessionEvents(id, request, options)
        case .sessionRender(let id):
            return renderSession(id, request)
        case .sessionTokens(let id):
            return issueStreamToken(id, request, principal)
        case .sessionExplain(let id):
            return explainSession(id, request)
        case .render:
            return renderDocument(request, options)
        case .playground:
            var page = Self.asset(Self.playgroundBytes, contentType: "text/html; charset=utf-8")
            page.addHeader("Content-Security-Policy", Self.playgroundPolicy)
            return page
        case .clientScript:
            return Self.clientScript(request)
        case .playgroundScript:
            return Self.asset(Self.playgroundScriptBytes, contentType: "text/javascript; charset=utf-8")
        case .metrics:
            return metrics()
        case .readyz:
            return readyz(mayWait: request.mayWait)
        case .openAPIJSON:
            return Self.asset(Self.openAPIJSONBytes, contentType: MediaType.json)
        case .openAPIYAML:
            return Self.asset(Self.openAPIYAMLBytes, contentType: "application/yaml")
        case .layoutDocumentSchema:
            return Self.asset(Self.layoutDocumentSchemaBytes, contentType: "application/schema+json")
        }
    }

    private func healthz() -> APIResponse {
        var w = JSONWriter(capacity: 48)
        w.appendRaw("{\"status\":\"ok\",\"sessions\":")
        w.appendInteger(Int64(sessionCount))
        w.appendRaw("}")
        return .json(200, w.bytes)
    }

    // MARK: shared steps

    /// A response that ends a request early (thrown with typed throws).
    struct Failure: Error {
        let response: APIResponse
        /// The session store fenced the write off: the caller catches its copy of the session up
        /// with the stored one (`catchUp`) and decides again.
        var staleSession = false
        init(_ response: APIResponse) { self.response = response }
    }

    /// The body as JSON, or a 400 naming line and column.
    func parseJSON(_ body: [UInt8]) throws(Failure) -> JSONValue {
        do {
            return try JSONParser.parse(body, maxDepth: configuration.maxJSONDepth)
        } catch {
            throw Failure(Problems.invalidJSON(error))
        }
    }

    /// A valid document, or a 422 listing every problem.
    func validate(_ json: JSONValue, patched: Bool = false) throws(Failure) -> Document {
        switch DocumentParser.parse(json, limits: limits) {
        case .success(let d): return d
        case .failure(let e): throw Failure(Problems.invalidDocument(e.problems, patch: patched))
        }
    }
}

/// Milliseconds for `Server-Timing`.
struct ServerTiming {
    /// Nanoseconds.
    var parse: Int64 = 0
    var solve: Int64 = 0

    /// `parse;dur=0.412, solve;dur=1.305`
    var header: (name: String, value: String) {
        // Written on the stack and decoded once: one allocation per request instead of the
        // interpolation's intermediate strings.
        let parse = Self.microseconds(parse), solve = Self.microseconds(solve)
        let value = withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 64) { buffer -> String in
            var n = 0
            @inline(__always) func put(_ label: [UInt8], _ micro: Int) {
                for c in label {
                    buffer[n] = c
                    n += 1
                }
                n += JSONChunk.writeMilliseconds(microseconds: UInt64(micro), to: buffer.baseAddress! + n)
            }
            put(Self.parseLabel, parse)
            put(Self.solveLabel, solve)
            return String(decoding: UnsafeBufferPointer(rebasing: buffer[0..<n]), as: UTF8.self)
        }
        return ("Server-Timing", value)
    }

    /// Whole microseconds of `nanoseconds` (rounded; never negative), capped so that the header
    /// stays within its buffer (1e12 ms, far beyond any request).
    private static func microseconds(_ nanoseconds: Int64) -> Int {
        Int((min(max(0, nanoseconds), 999_999_999_000_000_000) + 500) / 1_000)
    }

    private static let parseLabel = Array("parse;dur=".utf8)
    private static let solveLabel = Array(", solve;dur=".utf8)
}
