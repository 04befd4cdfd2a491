#if canImport(Glibc)
import Glibc
#endif
import CLibPQ
import Primitives
import Storage

/// The store's listening connection: a thread of its own that `LISTEN`s on `layoutd_sessions`,
/// waits on the connection's socket with poll(2), and hands each notification, decoded, to the
/// handlers (`observe`).
///
/// When the connection breaks (the server restarts, an administrator terminates it, the network
/// drops), notifications sent meanwhile are gone: the thread connects again with a growing pause
/// (50 ms doubling up to 2 s) and, once it listens again, sends `.lost`. The first connection
/// failing counts the same way (notices from `observe` until it listens are lost).
final class PostgresListener: @unchecked Sendable {
    static let channel = "layoutd_sessions"

    private let open: () throws(StorageError) -> PostgresConnection
    private let lock = PThreadLock()
    private var handlers: [@Sendable (StoreNotice) -> Void] = []
    private var closed = false
    private var thread: pthread_t?
    /// Written to wake the thread's poll at `stop`.
    private var wake: [Int32] = [-1, -1]

    init(open: @escaping () throws(StorageError) -> PostgresConnection) {
        self.open = open
    }

    func add(_ handler: @escaping @Sendable (StoreNotice) -> Void) {
        lock.withLock {
            guard !closed else { return }
            handlers.append(handler)
            guard thread == nil else { return }
            guard pipe(&wake) == 0 else { return }
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
        pthread_join(running, nil)
        Glibc.close(wake[0])
        Glibc.close(wake[1])
    }

    private var isClosed: Bool { lock.withLock { closed } }

    private func deliver(_ notice: StoreNotice) {
        for handler in lock.withLock({ handlers }) { handler(notice) }
    }

    private func run() {
        var pause = 0.05
        var missed = false
        while !isClosed {
            let connection: PostgresConnection
            do throws(StorageError) {
                connection = try open()
                try connection.execute("LISTEN \(Self.channel)")
            } catch {
                missed = true
                if waitForWake(seconds: pause) { return }
                pause = min(pause * 2, 2)
                continue
            }
            pause = 0.05
            if missed { deliver(.lost) }
            missed = true  // from here on, a return to the top of the loop means the connection broke
            if listen(on: connection) { return }
        }
    }

    /// Delivers notifications until the connection breaks (false) or `stop` (true).
    private func listen(on connection: PostgresConnection) -> Bool {
        let handle = connection.handle
        while true {
            var fds = [pollfd(fd: PQsocket(handle), events: Int16(POLLIN), revents: 0),
                       pollfd(fd: wake[0], events: Int16(POLLIN), revents: 0)]
            let ready = poll(&fds, 2, -1)
            if ready < 0 && errno == EINTR { continue }
            if fds[1].revents != 0 || isClosed { return true }
            if PQconsumeInput(handle) == 0 || PQstatus(handle) != CONNECTION_OK { return false }
            while let raw = PQnotifies(handle) {
                let payload = raw.pointee.extra.map { String(cString: $0) } ?? ""
                PQfreemem(raw)
                if let notice = Self.decode(payload) { deliver(notice) }
            }
        }
    }

    /// Sleeps up to `seconds` unless `stop` is called meanwhile (then answers true).
    private func waitForWake(seconds: Double) -> Bool {
        var fd = pollfd(fd: wake[0], events: Int16(POLLIN), revents: 0)
        _ = poll(&fd, 1, Int32(seconds * 1000))
        return isClosed
    }

    /// A notification's payload as the writes make it: `c GENERATION REVISION WRITEID ID`
    /// (created, replaced or patched), `p GENERATION REVISION WRITEID HEXPATCH ID` (patched, with
    /// the merge patch) or `d GENERATION ID` (deleted). The id comes last: it may hold spaces.
    /// WRITEID is the revision's write id as a signed 64-bit decimal (PostgreSQL's bigint).
    static func decode(_ payload: String) -> StoreNotice? {
        let parts = payload.split(separator: " ", maxSplits: 4, omittingEmptySubsequences: false)
        switch parts.first {
        case "c" where parts.count == 5:
            guard let g = UInt64(parts[1]), let r = Int(parts[2]), let w = Int64(parts[3]) else { return nil }
            return .changed(id: String(parts[4]), generation: g, revision: r, writeID: UInt64(bitPattern: w))
        case "p" where parts.count == 5:
            let rest = parts[4].split(separator: " ", maxSplits: 1, omittingEmptySubsequences: false)
            guard let g = UInt64(parts[1]), let r = Int(parts[2]), let w = Int64(parts[3]), rest.count == 2,
                  let patch = Self.bytes(hex: rest[0]) else { return nil }
            return .changed(id: String(rest[1]), generation: g, revision: r, writeID: UInt64(bitPattern: w), patch: patch)
        case "d" where parts.count >= 3:
            let rest = payload.split(separator: " ", maxSplits: 2, omittingEmptySubsequences: false)
            guard let g = UInt64(rest[1]) else { return nil }
            return .deleted(id: String(rest[2]), generation: g)
        default:
            return nil
        }
    }

    /// The bytes of lowercase or uppercase hex digits; nil when they are not.
    static func bytes(hex: Substring) -> [UInt8]? {
        let digits = Array(hex.utf8)
        guard digits.count % 2 == 0 else { return nil }
        func value(_ c: UInt8) -> UInt8? {
            switch c {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): return c - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): return c - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): return c - UInt8(ascii: "A") + 10
            default: return nil
            }
        }
        var out: [UInt8] = []
        out.reserveCapacity(digits.count / 2)
        var i = 0
        while i < digits.count {
            guard let high = value(digits[i]), let low = value(digits[i + 1]) else { return nil }
            out.append(high << 4 | low)
            i += 2
        }
        return out
    }
}
