#if canImport(Glibc)
import Glibc
#endif
import CLibPQ
import Primitives
import Storage

/// The store's listening connection: a thread of its own that `LISTEN`s on the channels of the
/// sessions this node holds a copy of (`follow`, `NoticeBuckets`), waits on the connection's
/// socket with poll(2), and hands each notification, decoded, to the handlers (`observe`).
///
/// **Targeted** (issue 28): a node hears of writes to the buckets it follows only, so PostgreSQL
/// sends each write's notice to the nodes holding that session (and those sharing its bucket),
/// not to every node. `follow` counts a copy in its bucket and returns once the bucket's `LISTEN`
/// is in place: the caller reads the session after that, so no write committed after the read
/// began goes unheard. The thread sends the `LISTEN`s and `UNLISTEN`s itself, one statement at a
/// time between heartbeats; a bucket nobody follows any more is left at the next turn.
/// It also listens on `layoutd_sessions`, the one channel of layoutd before issue 28, so that
/// during a rolling upgrade it hears the writes of nodes not yet upgraded.
///
/// **Checked for life** (issue 27): a connection can hang without breaking (its server process
/// stopped, a half-open TCP connection before keepalives give up), and a listener that hears
/// nothing cannot tell silence from a dead line. So the listener `NOTIFY`s itself every
/// `heartbeatSeconds` on a channel of its own; when nothing (heartbeat, notification or query
/// result) has come back for `silenceSeconds`, it drops the connection and connects again. Every
/// call on its thread is bounded: the connection is made and used without blocking (libpq's
/// non-blocking connect and `PQsendQuery`), and each wait is a poll(2) with a deadline.
///
/// When the connection breaks or falls silent, notifications sent meanwhile are gone: the thread
/// sends `.lost` at once (every copy is checked against the store on its next use), again after
/// each failed attempt to connect (a copy checked meanwhile may fall behind again), and once it
/// listens again; it connects again with a growing pause (50 ms doubling up to 2 s). The first
/// connection failing counts the same way (notices from `observe` until it listens are lost).
final class PostgresListener: @unchecked Sendable {
    static let channel = "layoutd_sessions"
    /// How often the listener `NOTIFY`s itself: one tiny transaction per interval per node.
    static let heartbeatSeconds = 0.5
    /// How long the listener may hear nothing before it takes its connection for dead: four
    /// heartbeats, so that a server busy for a moment is not taken for a hung one.
    static let silenceSeconds = 2.0
    /// The most a connection attempt may take (libpq's `connect_timeout` does not bound the
    /// non-blocking connect; it is the store's default of 5 s).
    static let connectSeconds = 5.0
    /// The most `follow` waits for its bucket's `LISTEN` (one round trip, when the bucket is new
    /// to this node); past it, it returns and owes a `.lost`.
    static let followSeconds = 1.0

    let url: String
    /// libpq settings before the URL's (the URL wins): the store's, named as the listener.
    let defaults: [(String, String)]
    let silence: Double
    /// The channel of this listener's heartbeat, random so that no other listener hears it.
    let heartbeatChannel = "layoutd_hb_" + String(UInt64.random(in: 0...UInt64.max), radix: 16)

    private let lock = PThreadLock()
    private var handlers: [@Sendable (StoreNotice) -> Void] = []
    private var closed = false
    private var thread: pthread_t?
    /// The server process of the connection listening now, 0 when none (tests stop it).
    private var listeningPID: Int32 = 0
    /// Written to wake the thread's poll at `stop`.
    private var wake: [Int32] = [-1, -1]
    /// Written by `follow` to have the thread send a `LISTEN` now.
    private var kick: [Int32] = [-1, -1]
    /// Copies held, by bucket (`follow` and `unfollow`); a bucket is here while its count is > 0.
    private var wanted: [Int: Int] = [:]
    /// The buckets whose `LISTEN` is in place on the connection listening now.
    private var listened: Set<Int> = []
    /// The buckets of an `UNLISTEN` sent and not yet answered: a `follow` of one waits for the
    /// `LISTEN` that comes after it.
    private var leaving: Set<Int> = []
    /// A `follow` returned without its `LISTEN` in place: `.lost` is sent once every bucket
    /// followed is listened on.
    private var owesLost = false

    /// `defaults` get an `application_name` of `layoutd listener PID` (a URL naming one wins), so
    /// that an operator finds each node's listener in `pg_stat_activity`.
    init(url: String, defaults: [(String, String)], silence: Double = PostgresListener.silenceSeconds) {
        self.url = url
        self.defaults = defaults.filter { $0.0 != "application_name" } + [("application_name", "layoutd listener \(getpid())")]
        self.silence = silence
    }

    func add(_ handler: @escaping @Sendable (StoreNotice) -> Void) {
        lock.withLock {
            guard !closed else { return }
            handlers.append(handler)
            guard thread == nil else { return }
            guard pipe(&wake) == 0 else { return }
            guard pipe(&kick) == 0 else { return }
            // A kick never blocks its writer, and the thread drains what is there without waiting.
            _ = fcntl(kick[0], F_SETFL, fcntl(kick[0], F_GETFL) | O_NONBLOCK)
            _ = fcntl(kick[1], F_SETFL, fcntl(kick[1], F_GETFL) | O_NONBLOCK)
            thread = startThread { [self] in run() }
        }
    }

    func stop() {
        let running: pthread_t? = lock.withLock {
            if closed { return nil }
            closed = true
            return thread
        }
        guard let running else { return }
        var byte: UInt8 = 1
        _ = write(wake[1], &byte, 1)
        lock.withLock { lock.broadcast() }  // `follow`s waiting give up
        pthread_join(running, nil)
        for fd in wake + kick { Glibc.close(fd) }
    }

    /// Counts one more copy held in `bucket`, and returns once the bucket's `LISTEN` is in place
    /// (at once when it already is). A session read after `follow` returns can therefore miss no
    /// write: one committed after the read began is told on a channel already listened on.
    /// When the listener is not listening (connecting, again), or the `LISTEN` is not answered
    /// within `followSeconds`, it returns all the same and the listener owes a `.lost`, sent once
    /// every bucket followed is listened on: every copy is checked against the store on its next
    /// use, this one included. Without a listener (nobody observes) it only counts.
    func follow(_ bucket: Int) {
        let deadline = MonotonicTime.now.adding(seconds: Self.followSeconds)
        let waits: Bool = lock.withLock {
            wanted[bucket, default: 0] += 1
            return thread != nil && !closed && !isListened(bucket)
        }
        guard waits else { return }
        var byte: UInt8 = 1
        _ = write(kick[1], &byte, 1)
        lock.withLock {
            while !closed && !isListened(bucket) {
                let left = deadline - MonotonicTime.now
                guard listeningPID != 0, left > 0 else {
                    owesLost = true
                    return
                }
                lock.wait(seconds: Double(left) / 1e9)
            }
        }
    }

    /// One copy fewer held in `bucket` (a `follow` undone); the bucket is left at the thread's
    /// next turn when it was the last.
    func unfollow(_ bucket: Int) {
        lock.withLock {
            guard let n = wanted[bucket] else { return }
            wanted[bucket] = n > 1 ? n - 1 : nil
        }
    }

    /// Under the lock.
    private func isListened(_ bucket: Int) -> Bool { listened.contains(bucket) && !leaving.contains(bucket) }

    /// The buckets followed now, for a `LISTEN` on a new connection; none counts as listened
    /// until it is answered (`settled`).
    func bucketsToListen() -> Set<Int> {
        lock.withLock {
            listened = []
            leaving = []
            lock.broadcast()
            return Set(wanted.keys)
        }
    }

    /// What the connection must `LISTEN` on and `UNLISTEN` to follow the buckets wanted now;
    /// nil when it follows them. The buckets to leave count as leaving until `settled`.
    func bucketChanges() -> (listen: Set<Int>, unlisten: Set<Int>)? {
        lock.withLock {
            let want = Set(wanted.keys)
            let add = want.subtracting(listened), remove = listened.subtracting(want)
            if add.isEmpty && remove.isEmpty { return nil }
            leaving = remove
            return (add, remove)
        }
    }

    /// A `LISTEN`/`UNLISTEN` statement was answered: wakes the `follow`s it was for, and sends an
    /// owed `.lost` once every bucket wanted is listened on.
    func settled(listen: Set<Int>, unlisten: Set<Int>) {
        let lost: Bool = lock.withLock {
            listened.formUnion(listen)
            listened.subtract(unlisten)
            leaving.subtract(unlisten)
            lock.broadcast()
            guard owesLost, Set(wanted.keys).isSubset(of: listened) else { return false }
            owesLost = false
            return true
        }
        if lost { deliver(.lost) }
    }

    /// Drains the kick pipe (after poll said it holds bytes).
    func drainKicks() {
        var bytes = [UInt8](repeating: 0, count: 64)
        while read(kick[0], &bytes, bytes.count) == bytes.count {}
    }

    /// The pipe `follow` writes to.
    var kickDescriptor: Int32 { kick[0] }

    /// The process id of the server process listening now; 0 while not listening.
    var backendPID: Int32 { lock.withLock { listeningPID } }

    var isClosed: Bool { lock.withLock { closed } }

    /// The buckets listened on now (tests).
    var listenedBuckets: Set<Int> { lock.withLock { listened.subtracting(leaving) } }

    func deliver(_ notice: StoreNotice) {
        for handler in lock.withLock({ handlers }) { handler(notice) }
    }

    private func run() {
        var pause = 0.05
        var missed = false
        while !isClosed {
            let connection: PostgresConnection
            switch connect() {
            case .stopped:
                return
            case .failed:
                missed = true
                deliver(.lost)
                if waitForWake(seconds: pause) { return }
                pause = min(pause * 2, 2)
                continue
            case .connected(let c):
                connection = c
            }
            var listened = false
            let end = listen(on: connection) {
                listened = true
                pause = 0.05
                lock.withLock { listeningPID = connection.backendPID }
                if missed { deliver(.lost) }
                missed = false
            }
            lock.withLock {
                listeningPID = 0
                self.listened = []
                leaving = []
                lock.broadcast()
            }
            if case .stopped = end { return }
            // Broken or silent: whatever was sent since the last notice heard is lost.
            missed = true
            deliver(.lost)
            if !listened {
                // Connected but never listening (LISTEN refused or unanswered): pause as after a
                // failed connect, rather than connect again and again at once.
                if waitForWake(seconds: pause) { return }
                pause = min(pause * 2, 2)
            }
        }
    }

    /// Sleeps up to `seconds` unless `stop` is called meanwhile (then answers true).
    private func waitForWake(seconds: Double) -> Bool {
        var fd = pollfd(fd: wake[0], events: Int16(POLLIN), revents: 0)
        _ = poll(&fd, 1, Int32(seconds * 1000))
        return isClosed
    }

    /// What a wait for the connection's socket saw.
    enum Wait {
        case ready
        case timedOut
        case stopped
        /// `follow` asked for a `LISTEN` (only when the wait is `kickable`).
        case kicked
    }

    /// Waits until `fd` is ready for `events`, `stop` is called, `deadline` passes or, when
    /// `kickable`, a `follow` asks for a `LISTEN`.
    func wait(for fd: Int32, _ events: Int16, until deadline: MonotonicTime, kickable: Bool = false) -> Wait {
        while true {
            let left = deadline - MonotonicTime.now
            if left <= 0 { return .timedOut }
            var fds = [pollfd(fd: fd, events: events, revents: 0),
                       pollfd(fd: wake[0], events: Int16(POLLIN), revents: 0),
                       pollfd(fd: kickable ? kick[0] : -1, events: Int16(POLLIN), revents: 0)]
            // Rounded up: a poll that returns a little early would only spin.
            let milliseconds = Int32(clamping: (left + 999_999) / 1_000_000)
            let ready = poll(&fds, 3, milliseconds)
            if ready < 0 && errno == EINTR { continue }
            if fds[1].revents != 0 || isClosed { return .stopped }
            if fds[2].revents != 0 {
                drainKicks()
                return .kicked
            }
            if ready < 0 { return .ready }  // let libpq find out what is wrong with the socket
            if fds[0].revents != 0 { return .ready }
        }
    }
}
