extension LayoutAPI {
    /// `GET /v1/sessions/{id}/events`: a Server-Sent Events stream of the session's revisions.
    ///
    /// The answer is 200 `text/event-stream` with `stream` set; the transport keeps the connection
    /// open and calls `stream.open` with a sink. The first event is the current revision with every
    /// frame (`"all":true`); each later revision sends the frames that changed and the views that
    /// went away; deleting the session sends `event: deleted`, its idle expiry `event: expired`,
    /// and either ends the stream; the daemon shutting down sends `event: shutdown` last.
    /// Every event's `id` is its revision. A client that reconnects (`Last-Event-ID`) gets the
    /// current revision with every frame first: whatever it missed is filled in by that event.
    /// `coordinates=absolute` works as on the other routes. `HEAD` gets the headers only.
    func sessionEvents(_ id: String, _ request: APIRequest, _ options: QueryOptions) -> APIResponse {
        // `withState` wakes a dormant session here, in the handler, which the daemon runs off the
        // worker's loop when the wake is expensive (`isExpensive`); waking it when the stream
        // opens would solve it on the loop.
        var session: Session
        switch existingSession(id, mayWait: request.mayWait) {
        case .success(let found): session = found
        case .failure(let failure): return failure.response
        }
        // A client reconnecting after its node died names the last revision it saw; this node's
        // copy may not have heard of it yet: catch up first, so the stream never goes back.
        if sharedStore, let seen = request.header("Last-Event-ID").flatMap({ Int($0) }),
           seen > session.liveRevision ?? .max {
            guard request.mayWait else { return .waitNeeded }
            do throws(Failure) { session = try caughtUp(session) } catch { return error.response }
        }
        do throws(Failure) {
            guard let alive = try session.withState(mayWait: request.mayWait, { $0.alive }) else { return .waitNeeded }
            guard alive else { return Problems.sessionNotFound(id) }
        } catch {
            return error.response
        }
        var response = APIResponse(status: 200, headers: [
            ("Content-Type", "text/event-stream"),
            ("Cache-Control", "no-cache"),
            ("X-Accel-Buffering", "no"),
        ])
        guard request.method == "GET" else { return response }
        // Checked when answering; the stream opens right after on the same worker, so only
        // streams opening at that moment on other workers can pass the limits with this one.
        if session.events.count >= configuration.maxSubscribersPerSession {
            return Problems.tooManySubscribers(session: id, limit: configuration.maxSubscribersPerSession)
        }
        if subscribers.withLock({ $0 }) >= configuration.maxSubscribers {
            return Problems.subscribersFull(limit: configuration.maxSubscribers)
        }
        let absolute = options.absolute
        response.stream = APIEventStream(open: { [self, session] sink in
            subscribe(session, sink, absolute: absolute)
        }, shutdown: SessionEvents.shutdownEvent(sessionID: session.id))
        return response
    }

    /// Subscribes `sink` to `session`, or says `deleted` at once when the session died between the
    /// answer and the stream opening. Unsubscribes when the stream ends.
    func subscribe(_ session: Session, _ sink: any SSESink, absolute: Bool) {
        let events = session.events
        // On the worker's loop as the stream opens: a session another request holds (a write
        // waiting for the store) is subscribed to from the catch-up queue instead.
        guard let taken: Int? = session.tryWithState({ st in
            st.alive ? events.subscribe(sink, absolute: absolute, current: st) : nil
        }) else {
            catchUpQueue.async { [self] in subscribeWaiting(session, sink, absolute: absolute) }
            return
        }
        finishSubscribing(session, sink, token: taken)
    }

    private func subscribeWaiting(_ session: Session, _ sink: any SSESink, absolute: Bool) {
        let events = session.events
        let token: Int?
        do throws(Failure) {
            token = try session.withState { st in
                st.alive ? events.subscribe(sink, absolute: absolute, current: st) : nil
            }
        } catch {
            // It slept again since the answer and the store cannot give its text back now: the
            // stream ends without an event, and the client reconnects (a `deleted` would lie).
            sink.execute { sink.finish() }
            return
        }
        finishSubscribing(session, sink, token: token)
    }

    private func finishSubscribing(_ session: Session, _ sink: any SSESink, token: Int?) {
        let events = session.events
        guard let token else {
            let event = SessionEnd.deleted.event(sessionID: session.id)
            sink.execute {
                sink.send(event)
                sink.finish()
            }
            return
        }
        subscribers.withLock { $0 += 1 }
        let all = subscribers
        sink.onClose {
            events.unsubscribe(token)
            all.withLock { $0 -= 1 }
        }
    }

    /// Open event streams over all sessions.
    public var subscriberCount: Int { subscribers.withLock { $0 } }

    /// Open event streams on the session `id` (0 when there is no such session).
    public func subscriberCount(session id: String) -> Int {
        registry.peek(id)?.events.count ?? 0
    }
}
