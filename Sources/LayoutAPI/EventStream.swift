import Primitives
import JSON
import LayoutEngine

/// Where the events of `GET /v1/sessions/{id}/events` go: one open Server-Sent Events stream.
///
/// The API stays socket-free: the daemon implements this on top of EventHTTP's `HTTPStream`,
/// tests with an in-memory fake. Every method may be called from any thread.
public protocol SSESink: Sendable {
    /// Sends one event (its `bytes`, shared with the other subscribers: the sink must not need a
    /// copy of its own).
    func send(_ event: SSEEvent)
    /// Runs `job` on the thread that writes the stream, in the order the jobs were given (at once
    /// when the caller is already that thread). Returns false when the stream's thread is gone
    /// and the job was dropped. The API sends from inside these jobs only, so events of
    /// concurrent requests reach the client in revision order.
    @discardableResult
    func execute(_ job: @escaping @Sendable () -> Void) -> Bool
    /// Ends the stream once what was sent before is out.
    func finish()
    /// Runs `handler` once when the stream ends for any reason (the client left, `finish()`, the
    /// server stops); at once if it has already ended.
    func onClose(_ handler: @escaping @Sendable () -> Void)
}

/// The answer to `GET /v1/sessions/{id}/events`: the transport sends the status and headers of the
/// `APIResponse`, then keeps the connection open and calls `open` with a sink for it. Heartbeats
/// (`: ping` comments on a quiet stream, more often than the connection's idle time-out) are the
/// transport's business.
public struct APIEventStream: Sendable {
    /// Subscribes the sink to the session. Call it once, when the stream is open.
    public var open: @Sendable (any SSESink) -> Void
    /// The last event when the stream ends because the daemon shuts down (SIGTERM):
    /// `event: shutdown` with a `retry:` hint, so that a client reconnects (to another node, or to
    /// this one once restarted) instead of taking the end for an error. The transport sends it.
    public var shutdown: SSEEvent?

    public init(open: @escaping @Sendable (any SSESink) -> Void, shutdown: SSEEvent? = nil) {
        self.open = open
        self.shutdown = shutdown
    }
}

/// The subscribers of one session's event stream (thread-safe).
///
/// Lock order: the session's state lock, then this list's lock; never the other way round. No
/// sink is called while this list's lock is held (a sink may end at once and unsubscribe).
/// `publish` and `subscribe` run under the session's state lock, so every subscriber sees each
/// revision exactly once and in order, starting from the snapshot it was given.
final class SessionEvents: @unchecked Sendable {
    /// Whether `subscribe` ever ran. Touched only by `subscribe` and `publish`, which are called
    /// with the session's state lock held, so it needs no lock of its own: `publish` on a session
    /// nobody ever watched (the usual case, once per edit) takes no lock and reads no list.
    private var everSubscribed = false

    private struct State {
        var subscribers: [Subscriber] = []
        var nextToken = 0
        /// Frames as last sent, per coordinate system; nil while nobody of that kind listens.
        /// While set, they are the frames of the session's current revision.
        var lastRelative: [(id: String, frame: Frame)]?
        var lastAbsolute: [(id: String, frame: Frame)]?
    }

    private let state = Locked(State())

    var count: Int { state.withLock { $0.subscribers.count } }

    /// Adds a subscriber and queues its first event: every frame at the current revision. Call
    /// with the session's state lock held and the session alive.
    func subscribe(_ sink: any SSESink, absolute: Bool, current st: SessionState) -> Int {
        let frames = absolute ? st.system.frames(.absolute) : st.frames
        everSubscribed = true
        let subscriber: Subscriber = state.withLock { s in
            let sub = Subscriber(token: s.nextToken, sink: sink, absolute: absolute)
            s.nextToken += 1
            s.subscribers.append(sub)
            if absolute { s.lastAbsolute = frames } else { s.lastRelative = frames }
            return sub
        }
        subscriber.post(.event(Self.revisionEvent(Self.revisionData(revision: st.revision, all: true, frames: frames,
                                                                    removed: [], diagnostics: st.diagnostics),
                                                  revision: st.revision)))
        return subscriber.token
    }

    /// Drops a subscriber (its stream ended). Safe to call more than once.
    func unsubscribe(_ token: Int) {
        state.withLock { s in
            s.subscribers.removeAll { $0.token == token }
            if !s.subscribers.contains(where: { $0.absolute }) { s.lastAbsolute = nil }
            if !s.subscribers.contains(where: { !$0.absolute }) { s.lastRelative = nil }
        }
    }

    /// Tells every subscriber about the session's new revision: the frames that changed since the
    /// previous one (new views included), the views that went away, and the diagnostics. Call
    /// with the session's state lock held, after every change of revision.
    func publish(_ st: SessionState) {
        guard everSubscribed else { return }
        // Each kind's event is encoded once and shared by its subscribers (see `SSEEvent`).
        typealias Work = (subscribers: [Subscriber], relative: SSEEvent?, absolute: SSEEvent?)
        let work: Work? = state.withLock { s in
            if s.subscribers.isEmpty {
                s.lastRelative = nil
                s.lastAbsolute = nil
                return nil
            }
            var relative: SSEEvent?, absolute: SSEEvent?
            if let before = s.lastRelative {
                relative = Self.revisionEvent(Self.delta(before, st.frames, st), revision: st.revision)
                s.lastRelative = st.frames
            }
            if let before = s.lastAbsolute {
                let after = st.system.frames(.absolute)
                absolute = Self.revisionEvent(Self.delta(before, after, st), revision: st.revision)
                s.lastAbsolute = after
            }
            return (s.subscribers, relative, absolute)
        }
        guard let work else { return }
        for sub in work.subscribers {
            if let event = sub.absolute ? work.absolute : work.relative { sub.post(.event(event)) }
        }
    }

    /// Sends the end's event (`deleted` or `expired`) to every subscriber and ends their streams.
    /// Call once the session is marked dead (after its state lock is released or while holding it).
    func end(sessionID: String, _ end: SessionEnd) {
        let subscribers: [Subscriber] = state.withLock { s in
            defer {
                s.subscribers = []
                s.lastRelative = nil
                s.lastAbsolute = nil
            }
            return s.subscribers
        }
        let event = end.event(sessionID: sessionID)
        for sub in subscribers {
            sub.post(.event(event))
            sub.post(.finish)
        }
    }

    // MARK: event bodies

    static func revisionEvent(_ data: String, revision: Int) -> SSEEvent {
        SSEEvent(data: data, event: "revision", id: String(revision))
    }

    private static func delta(_ before: [(id: String, frame: Frame)], _ after: [(id: String, frame: Frame)],
                              _ st: SessionState) -> String {
        let changed = SessionState.changedPositions(from: before, to: after).map { after[$0] }
        let now = Set(after.map(\.id))
        let removed = before.map(\.id).filter { !now.contains($0) }
        return revisionData(revision: st.revision, all: false, frames: changed, removed: removed,
                            diagnostics: st.diagnostics)
    }

    /// `{"revision":N,"all":bool,"frames":{…},"removed":[…],"diagnostics":{…}}` on one line.
    static func revisionData(revision: Int, all: Bool, frames: [(id: String, frame: Frame)], removed: [String],
                             diagnostics: Diagnostics) -> String {
        var w = JSONWriter(capacity: 160 + frames.count * 64)
        w.appendRaw("{\"revision\":")
        w.appendInteger(Int64(revision))
        w.appendRaw(",\"all\":")
        w.appendBool(all)
        w.appendRaw(",\"frames\":")
        ResultEncoder.appendFrames(frames, to: &w)
        w.appendRaw(",\"removed\":")
        ResultEncoder.appendStrings(removed, to: &w)
        w.appendRaw(",\"diagnostics\":")
        ResultEncoder.appendDiagnostics(diagnostics, to: &w)
        w.appendRaw("}")
        return String(decoding: w.bytes, as: UTF8.self)
    }

    /// `{"id":"…"}`, or `{"id":"…","reason":"…"}` with a reason: the data of a stream's last event.
    static func endData(sessionID: String, reason: String?) -> String {
        var w = JSONWriter(capacity: 64)
        w.appendRaw("{\"id\":")
        w.appendString(SessionID.visible(sessionID))
        if let reason {
            w.appendRaw(",\"reason\":")
            w.appendString(reason)
        }
        w.appendRaw("}")
        return String(decoding: w.bytes, as: UTF8.self)
    }

    /// `event: shutdown` for a stream of `sessionID`: data `{"id":"…","retry":ms}` and the same
    /// `retry:` for EventSource. The hint is spread over 1 to 3 s so that the clients of a node
    /// that stops do not all come back in the same instant.
    static func shutdownEvent(sessionID: String, retryMilliseconds: Int = Int.random(in: 1_000...3_000)) -> SSEEvent {
        var w = JSONWriter(capacity: 64)
        w.appendRaw("{\"id\":")
        w.appendString(SessionID.visible(sessionID))
        w.appendRaw(",\"retry\":")
        w.appendInteger(Int64(retryMilliseconds))
        w.appendRaw("}")
        return SSEEvent(data: String(decoding: w.bytes, as: UTF8.self), event: "shutdown", retry: retryMilliseconds)
    }

}

/// How a session's event streams end: `event: deleted` (`{"id","reason":"deleted"}`) when it is
/// deleted, `event: expired` (`{"id"}`) when idle expiry removed it.
enum SessionEnd: Sendable {
    case deleted, expired

    func event(sessionID: String) -> SSEEvent {
        switch self {
        case .deleted: SSEEvent(data: SessionEvents.endData(sessionID: sessionID, reason: "deleted"), event: "deleted")
        case .expired: SSEEvent(data: SessionEvents.endData(sessionID: sessionID, reason: nil), event: "expired")
        }
    }
}

/// One open stream: its sink and the events queued for it.
///
/// Events are queued here in revision order (under the session's lock) and written by jobs that
/// run on the sink's own thread; whichever job runs first writes everything queued so far. So a
/// request on another thread cannot overtake an earlier one, whatever thread it runs on.
private final class Subscriber: Sendable {
    enum Item: Sendable {
        case event(SSEEvent)
        case finish
    }

    let token: Int
    let sink: any SSESink
    let absolute: Bool
    private let outbox = Locked<(items: [Item], finished: Bool)>(([], false))

    init(token: Int, sink: any SSESink, absolute: Bool) {
        self.token = token
        self.sink = sink
        self.absolute = absolute
    }

    func post(_ item: Item) {
        let accepted = outbox.withLock { box -> Bool in
            guard !box.finished else { return false }
            box.items.append(item)
            if case .finish = item { box.finished = true }
            return true
        }
        let queued = accepted && sink.execute { [self] in drain() }
        if !queued, case .event = item { APIMetrics.counters.add(APIMetrics.eventsDropped) }
    }

    /// On the sink's thread: writes everything queued, in order.
    private func drain() {
        let items = outbox.withLock { box -> [Item] in
            defer { box.items.removeAll() }
            return box.items
        }
        for item in items {
            switch item {
            case .event(let event):
                sink.send(event)
                APIMetrics.counters.add(APIMetrics.eventsSent)
            case .finish:
                sink.finish()
            }
        }
    }
}
