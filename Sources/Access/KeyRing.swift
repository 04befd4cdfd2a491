#if canImport(Glibc)
import Glibc
#endif
import Primitives

/// What a `KeyRing` tells its owner (the daemon logs it). Never holds a key.
public enum KeyRingEvent: Sendable {
    /// The file changed and was read: this many keys now.
    case reloaded(keys: Int)
    /// The file changed but is malformed: the keys read before stay in effect.
    case rejected(KeyFileError)
    /// The file cannot be read (removed, permissions): the keys read before stay in effect.
    case unreadable(path: String, errno: Int32)
}

/// The daemon's view of the keys file: read at start, read again on a change (a watcher thread)
/// or on `reload()` (SIGHUP), and asked on every request which key a bearer is.
///
/// A malformed or unreadable file after the start keeps the keys last read, so an edit in
/// progress never locks every client out (nor lets a revoked key back in: a file that does
/// not parse revokes nothing, and the operator sees `.rejected`).
public final class KeyRing: Sendable {
    public let path: String
    private let onEvent: @Sendable (KeyRingEvent) -> Void
    private let state: Locked<Keys>
    /// The file as last read (device, inode, size, mtime): what the watcher compares.
    private let stamp: Locked<FileStamp?>
    private let watcher = Locked(Watcher())
    /// Held while the file is read and its keys put in effect.
    private let reloading = PThreadLock()
    /// Woken by `stop()`, so the watcher's wait between checks ends at once.
    private let wake = PThreadLock()

    public init(path: String, onEvent: @escaping @Sendable (KeyRingEvent) -> Void = { _ in }) throws(KeyFileError) {
        self.path = path
        self.onEvent = onEvent
        let stamp = FileStamp(path: path)
        state = Locked(Keys(try KeyFile.load(path: path)))
        self.stamp = Locked(stamp)
    }

    deinit {
        // The watcher holds the ring weakly: it ends at its next check. Not joined here, since
        // this may run on the watcher's own thread (its last strong reference).
        watcher.withLock { w in
            w.stopping = true
            if let thread = w.thread { pthread_detach(thread) }
            w.thread = nil
        }
        wake.withLock { wake.broadcast() }
    }

    // MARK: - Asking

    /// The record of the key `bearer`, or nil for an unknown key. The key is hashed once; the
    /// hash is compared with the records' in constant time (`constantTimeEquals`). Records are
    /// found by the first 8 bytes of the digest: the time that lookup takes depends only on bits
    /// of a hash of the guess, which say nothing about any key.
    public func authenticate(bearer: String) -> APIKeyRecord? {
        let digest = APIKeys.digest(of: bearer)
        let candidates = state.withLock { $0.byPrefix[Keys.prefix(of: digest)] } ?? []
        var found: APIKeyRecord?
        for candidate in candidates where constantTimeEquals(candidate.digest, digest) {
            found = candidate
        }
        return found
    }

    /// The record named `named` (stream tokens name their key).
    public func record(named: String) -> APIKeyRecord? {
        state.withLock { $0.byName[named] }
    }

    /// The number of keys in effect.
    public var count: Int { state.withLock { $0.records.count } }

    /// The tenants of the keys in effect, sorted and distinct: the bounded label set of metrics.
    public var tenants: [String] { state.withLock { $0.tenants } }

    /// The records in effect, in the file's order.
    public var records: [APIKeyRecord] { state.withLock { $0.records } }

    // MARK: - Reading again

    /// Reads the file again; whether the keys in effect changed. A malformed or unreadable file
    /// keeps them and is reported through `onEvent`; a change is reported as `.reloaded`.
    @discardableResult
    public func reload() -> Bool {
        // One reload at a time (SIGHUP and the watcher may ask at once): otherwise one that read
        // the file before a revocation could put the revoked key back after one that read it after.
        reloading.withLock { reloadNow() }
    }

    private func reloadNow() -> Bool {
        // The stamp before the contents: a write between the two is seen as a change next time.
        let current = FileStamp(path: path)
        stamp.withLock { $0 = current }
        let records: [APIKeyRecord]
        switch KeyFile.read(path: path) {
        case .failure(let e):
            onEvent(.unreadable(path: path, errno: e.code))
            return false
        case .success(let bytes):
            do throws(KeyFileError) {
                records = try KeyFile.parse(try KeyFile.decode(bytes, path: path), path: path)
            } catch {
                onEvent(.rejected(error))
                return false
            }
        }
        let changed = state.withLock { keys in
            guard keys.records != records else { return false }
            keys = Keys(records)
            return true
        }
        if changed { onEvent(.reloaded(keys: records.count)) }
        return changed
    }

    /// Starts one thread that checks the file's device, inode, size and modification time every
    /// `interval` seconds and reads it again when any of them changed (an edit in place, or a new
    /// file renamed over it, as `keys revoke` does). A second call does nothing.
    public func startWatching(interval: Double = 0.5) {
        watcher.withLock { w in
            guard w.thread == nil, !w.stopping else { return }
            let wake = self.wake
            let watcher = self.watcher
            w.thread = startThread { [weak self] in
                while true {
                    let stopping = wake.withLock { () -> Bool in
                        if watcher.withLock({ $0.stopping }) { return true }
                        wake.wait(seconds: interval)
                        return watcher.withLock { $0.stopping }
                    }
                    guard !stopping, let ring = self else { return }
                    ring.reloadIfChanged()
                }
            }
        }
    }

    /// Stops the watcher and waits for its thread to end.
    public func stop() {
        let thread = watcher.withLock { w -> pthread_t? in
            w.stopping = true
            defer { w.thread = nil }
            return w.thread
        }
        wake.withLock { wake.broadcast() }
        if let thread, pthread_equal(thread, pthread_self()) == 0 { pthread_join(thread, nil) }
    }

    private func reloadIfChanged() {
        let current = FileStamp(path: path)
        guard stamp.withLock({ $0 }) != current else { return }
        reload()
    }
}

/// The records in effect, indexed for the request path.
private struct Keys {
    let records: [APIKeyRecord]
    let byName: [String: APIKeyRecord]
    let byPrefix: [UInt64: [APIKeyRecord]]
    let tenants: [String]

    init(_ records: [APIKeyRecord]) {
        self.records = records
        byName = Dictionary(records.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
        byPrefix = Dictionary(grouping: records, by: { Keys.prefix(of: $0.digest) })
        tenants = Set(records.map(\.tenant)).sorted()
    }

    static func prefix(of digest: [UInt8]) -> UInt64 {
        digest.prefix(8).reduce(0) { $0 << 8 | UInt64($1) }
    }
}

private struct Watcher {
    var thread: pthread_t?
    var stopping = false
}

/// What `stat(2)` says of the file, enough to notice a change: a rename over it changes the
/// inode, an edit in place the size or the modification time (nanoseconds).
struct FileStamp: Equatable, Sendable {
    let device: UInt64
    let inode: UInt64
    let size: Int64
    let modified: Int64

    /// Nil when the file cannot be stat'ed (then its return is a change too).
    init?(path: String) {
        var s = stat()
        guard stat(path, &s) == 0 else { return nil }
        device = UInt64(s.st_dev)
        inode = UInt64(s.st_ino)
        size = Int64(s.st_size)
        modified = Int64(s.st_mtim.tv_sec) &* 1_000_000_000 &+ Int64(s.st_mtim.tv_nsec)
    }
}
