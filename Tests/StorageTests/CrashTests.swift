#if canImport(Glibc)
import Glibc
#endif
import Testing
import Storage
import SQLiteStorage

/// `kill -9` of a process that writes to a SQLite store: every change it acknowledged is there
/// after, none is half applied. The writing process is this test binary again, running only
/// `childWriter` (enabled by the environment the parent test sets).
@Suite("SQLite session store: kill -9")
struct CrashTests {
    static let writers = 4

    @Test("(child process of killMidWay) write patches until killed, printing each acknowledged revision",
          .enabled(if: getenv("LAYOUTD_CRASH_STORE") != nil))
    func childWriter() throws {
        let path = String(cString: getenv("LAYOUTD_CRASH_STORE"))
        let sync = StorageSync(rawValue: String(cString: getenv("LAYOUTD_CRASH_SYNC"))) ?? .everysec
        let store = try SQLiteSessionStorage(path: path, sync: sync, policy: SnapshotPolicy(maxPatches: 16))
        concurrently(Self.writers) { w in
            let id = "crash-\(w)"
            guard let g = try? store.create(id: id, revision: 1, document: document(views: 20, seed: w), delegates: [:]) else { return }
            Self.say("ack \(w) 1\n")
            var r = 1
            while true {
                r += 1
                guard let result = try? store.appendPatch(id: id, generation: g, revision: r, patch: Self.patch(w, r),
                                                          delegates: ["d": r % 2 == 0]) else { return }
                Self.say("ack \(w) \(r)\n")
                if result.snapshotDue, let s = try? store.load(id: id), let doc = try? s.document(replay: mergeReplay) {
                    try? store.saveSnapshot(id: id, generation: g, revision: r, document: doc)
                }
            }
        }
    }

    static func patch(_ writer: Int, _ revision: Int) -> [UInt8] { constantPatch(revision % 20, revision * 10 + writer) }

    /// One `write(2)` per line: nothing is buffered in the process when it is killed.
    static func say(_ line: String) {
        var bytes = Array(line.utf8)
        _ = bytes.withUnsafeMutableBytes { write(1, $0.baseAddress, $0.count) }
    }

    @Test("kill -9 mid-way loses no acknowledged change", arguments: [StorageSync.always, .everysec])
    func killMidWay(_ sync: StorageSync) throws {
        let dir = TemporaryDirectory()
        let path = dir.path + "/store.db"
        var fds: [Int32] = [0, 0]
        #expect(pipe(&fds) == 0)
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        posix_spawn_file_actions_adddup2(&actions, fds[1], 1)
        posix_spawn_file_actions_addclose(&actions, fds[0])
        // The child's own test-run report stays out of this run's log (scripts/test counts its lines).
        posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
        let args = ["/proc/self/exe", "--testing-library", "swift-testing", "--filter", "CrashTests/childWriter"]
        let env = ["LAYOUTD_CRASH_STORE=\(path)", "LAYOUTD_CRASH_SYNC=\(sync.rawValue)"]
        let argv = args.map { strdup($0) } + [nil], envp = env.map { strdup($0) } + [nil]
        defer { (argv + envp).forEach { free($0) } }
        var pid = pid_t()
        let spawnCode = posix_spawn(&pid, "/proc/self/exe", &actions, nil, argv, envp)
        posix_spawn_file_actions_destroy(&actions)
        close(fds[1])
        try #require(spawnCode == 0)

        // Read acknowledgements until every writer has made 60 revisions, then kill.
        var acked = [Int](repeating: 0, count: Self.writers)
        var pending = ""
        var killed = false
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let n = buffer.withUnsafeMutableBytes { read(fds[0], $0.baseAddress, $0.count) }
            if n <= 0 { break }
            pending += String(decoding: buffer[0..<n], as: UTF8.self)
            while let newline = pending.firstIndex(of: "\n") {
                let parts = pending[..<newline].split(separator: " ")
                if parts.count == 3, parts[0].hasSuffix("ack"), let w = Int(parts[1]), let r = Int(parts[2]), w < Self.writers {
                    acked[w] = max(acked[w], r)
                }
                pending = String(pending[pending.index(after: newline)...])
            }
            if !killed && acked.allSatisfy({ $0 >= 60 }) {
                kill(pid, SIGKILL)
                killed = true  // keep reading: lines written before the kill are still in the pipe
            }
        }
        close(fds[0])
        var status: Int32 = 0
        waitpid(pid, &status, 0)
        #expect(killed && (status & 0x7f) == SIGKILL, "the child ended before it was killed (status \(status))")

        let store = try SQLiteSessionStorage(path: path)
        defer { store.close() }
        #expect(try store.check().isIntact)
        for w in 0..<Self.writers {
            let s = try #require(try store.load(id: "crash-\(w)"))
            // Acknowledged: kept. Applied but not yet acknowledged when killed: may be kept (one more).
            #expect(s.revision == acked[w] || s.revision == acked[w] + 1, "writer \(w): stored \(s.revision), acknowledged \(acked[w])")
            #expect(s.patches.map(\.bytes) == s.patches.map { Self.patch(w, $0.revision) })
            #expect(s.delegates == ["d": s.revision % 2 == 0])
            var expected = document(views: 20, seed: w)
            if s.revision > 1 { expected = try mergeReplay(expected, (2...s.revision).map { StoredPatch(revision: $0, bytes: Self.patch(w, $0)) }) }
            #expect(try s.document(replay: mergeReplay) == expected)
        }
    }
}
