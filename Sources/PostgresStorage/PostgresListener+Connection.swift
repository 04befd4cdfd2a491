#if canImport(Glibc)
import Glibc
#endif
import CLibPQ
import Primitives
import Storage

/// The listener's connection, made and used without blocking: a hung server (a stopped server
/// process, a network that swallows packets) must not hold the thread beyond a deadline, or the
/// heartbeat could not notice it.
extension PostgresListener {
    /// What a connection attempt came to.
    enum Attempt {
        case connected(PostgresConnection)
        case failed
        case stopped
    }

    /// How listening on a connection ended.
    enum End {
        /// `stop` was called.
        case stopped
        /// The connection broke, or a statement on it failed.
        case broken
        /// Nothing came back for `silence` seconds.
        case silent
    }

    /// Connects with libpq's non-blocking connect, within `connectSeconds`. (Resolving a host
    /// name still blocks inside libpq, bounded by the resolver's own time-outs.)
    func connect() -> Attempt {
        let keywords = defaults.map(\.0) + ["dbname"]
        let values = defaults.map(\.1) + [url]
        let started = withCStrings(keywords) { k in withCStrings(values) { v in PQconnectStartParams(k, v, 1) } }
        guard let raw = started else { return .failed }
        let deadline = MonotonicTime.now.adding(seconds: Self.connectSeconds)
        // libpq's protocol: start as if the last poll had asked to write.
        var state = PGRES_POLLING_WRITING
        while PQstatus(raw) != CONNECTION_BAD {
            let events: Int16
            switch state {
            case PGRES_POLLING_OK: return .connected(PostgresConnection(adopting: raw))
            case PGRES_POLLING_READING: events = Int16(POLLIN)
            case PGRES_POLLING_WRITING: events = Int16(POLLOUT)
            default: PQfinish(raw); return .failed
            }
            switch wait(for: PQsocket(raw), events, until: deadline) {
            case .stopped: PQfinish(raw); return .stopped
            case .timedOut: PQfinish(raw); return .failed
            case .ready: state = PQconnectPoll(raw)
            case .kicked: continue  // (this wait is not kickable)
            }
        }
        PQfinish(raw)
        return .failed
    }

    /// Listens on `connection` and delivers its notifications until it breaks, falls silent, or
    /// `stop` is called; calls `listening` once the `LISTEN`s are answered. Sends the heartbeat
    /// every `heartbeatSeconds` and the `LISTEN`s and `UNLISTEN`s that follow the buckets wanted
    /// (`follow`), one statement at a time (a new one only once the last is answered: a hung
    /// server gets no pile of them); a bucket change goes before a heartbeat, since a request may
    /// be waiting for it.
    func listen(on connection: PostgresConnection, listening: () -> Void) -> End {
        let handle = connection.handle
        // Non-blocking: a send or a flush never waits for a server that does not read, and
        // PQfinish (when the connection is dropped) does not wait to say goodbye.
        guard PQsetnonblocking(handle, 1) == 0 else { return .broken }
        var isListening = false
        var busy = false
        var heard = MonotonicTime.now
        var nextBeat = heard
        /// The buckets of the statement in flight, settled when it is answered.
        var changing: (listen: Set<Int>, unlisten: Set<Int>)?
        func send(_ sql: String) -> Bool {
            busy = PQsendQuery(handle, sql) == 1
            return busy
        }
        func statements(_ changes: (listen: Set<Int>, unlisten: Set<Int>)) -> String {
            (changes.listen.sorted().map { "LISTEN \(NoticeBuckets.channel($0))" }
             + changes.unlisten.sorted().map { "UNLISTEN \(NoticeBuckets.channel($0))" }).joined(separator: "; ")
        }
        // synchronous_commit off: each heartbeat is a transaction (NOTIFY takes a transaction id)
        // that need not wait for a WAL flush; it only has to come back.
        let first = (listen: bucketsToListen(), unlisten: Set<Int>())
        changing = first
        let buckets = first.listen.isEmpty ? "" : "; " + statements(first)
        guard send("SET synchronous_commit = off; LISTEN \(Self.channel); LISTEN \(heartbeatChannel)" + buckets)
        else { return .broken }
        while true {
            let now = MonotonicTime.now
            let silentAt = heard.adding(seconds: silence)
            if !(now < silentAt) { return .silent }
            if isListening && !busy, let changes = bucketChanges() {
                changing = changes
                guard send(statements(changes)) else { return .broken }
            }
            if isListening && !busy && !(now < nextBeat) {
                guard send("NOTIFY \(heartbeatChannel)") else { return .broken }
                nextBeat = now.adding(seconds: Self.heartbeatSeconds)
            }
            let flushed = PQflush(handle)  // 0: all sent; 1: more to send once the socket takes it
            if flushed < 0 { return .broken }
            let until = isListening && !busy ? min(silentAt, nextBeat) : silentAt
            let events = Int16(POLLIN) | (flushed == 1 ? Int16(POLLOUT) : 0)
            switch wait(for: PQsocket(handle), events, until: until, kickable: isListening && !busy) {
            case .stopped: return .stopped
            case .timedOut, .kicked: continue
            case .ready: break
            }
            if PQconsumeInput(handle) == 0 || PQstatus(handle) != CONNECTION_OK { return .broken }
            while busy && PQisBusy(handle) == 0 {
                guard let result = PQgetResult(handle) else {
                    busy = false
                    if !isListening {
                        isListening = true
                        listening()
                    }
                    if let changes = changing {
                        changing = nil
                        settled(listen: changes.listen, unlisten: changes.unlisten)
                    }
                    break
                }
                let status = PQresultStatus(result)
                PQclear(result)
                guard status == PGRES_COMMAND_OK else { return .broken }
                heard = .now
            }
            while let raw = PQnotifies(handle) {
                heard = .now
                let channel = String(cString: raw.pointee.relname)
                let payload = raw.pointee.extra.map { String(cString: $0) } ?? ""
                PQfreemem(raw)
                // Every channel but the heartbeat's: the buckets followed, and the channel of nodes
                // not yet upgraded (see the type's comment).
                guard channel != heartbeatChannel, let notice = Self.decode(payload) else { continue }
                deliver(notice)
            }
        }
    }
}

extension MonotonicTime {
    /// The reading `seconds` later.
    func adding(seconds: Double) -> MonotonicTime {
        MonotonicTime(nanoseconds: nanoseconds &+ Int64(seconds * 1e9))
    }
}
