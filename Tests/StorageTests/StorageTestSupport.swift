#if canImport(Glibc)
import Glibc
#endif
import JSON
import Testing
import Storage
import SQLiteStorage
import PostgresStorage

/// The backends the shared scenarios run against: PostgreSQL only when a server is given
/// (`LAYOUTD_TEST_POSTGRES`, set by scripts/test).
enum Backend: String, CaseIterable, CustomTestStringConvertible, Sendable {
    case memory, sqlite, postgres

    var testDescription: String { rawValue }

    static var available: [Backend] { testPostgresURL == nil ? [.memory, .sqlite] : allCases }

    /// A new, empty store (a SQLite file in a fresh directory, removed with the fixture).
    func make(policy: SnapshotPolicy = SnapshotPolicy(), sync: StorageSync = .never) throws -> StoreFixture {
        switch self {
        case .memory:
            return StoreFixture(store: MemorySessionStorage(policy: policy), directory: nil)
        case .sqlite:
            let directory = TemporaryDirectory()
            return StoreFixture(store: try SQLiteSessionStorage(path: directory.path + "/store.db", sync: sync, policy: policy),
                                directory: directory)
        case .postgres:
            let database = try TestDatabase()
            return StoreFixture(store: try PostgresSessionStorage(url: database.url, sync: sync, policy: policy),
                                directory: nil, database: database)
        }
    }
}

/// A store under test and the directory that holds its file (or the database that holds its tables).
struct StoreFixture {
    let store: any SessionStorage
    let directory: TemporaryDirectory?
    var database: TestDatabase? = nil
}

/// A directory under /tmp, removed with everything in it when the value is released.
final class TemporaryDirectory: @unchecked Sendable {
    let path: String

    init() {
        var template = Array("/tmp/layoutd-storage-XXXXXX".utf8CString)
        path = template.withUnsafeMutableBufferPointer { String(cString: mkdtemp($0.baseAddress!)) }
    }

    deinit { _ = run("rm", "-rf", path) }
}

/// Runs a program (found on PATH) and answers its exit status.
@discardableResult
func run(_ arguments: String...) -> Int32 {
    var pid = pid_t()
    let argv = arguments.map { strdup($0) } + [nil]
    defer { argv.forEach { free($0) } }
    guard posix_spawnp(&pid, arguments[0], nil, nil, argv, environ) == 0 else { return -1 }
    var status: Int32 = 0
    waitpid(pid, &status, 0)
    return (status >> 8) & 0xff
}

/// The replay the tests use: RFC 7396 merge patches on the JSON text, written compactly.
let mergeReplay: PatchReplay = { document, patches in
    var value = try JSONParser.parse(document, maxDepth: 1024)
    for p in patches { value = value.applyingMergePatch(try JSONParser.parse(p.bytes, maxDepth: 1024)) }
    return JSONWriter.serialize(value)
}

/// A document of `views` views and one constraint per view, about 200 bytes a view.
func document(views: Int, seed: Int = 0) -> [UInt8] {
    var text = "{\"views\":{"
    text.reserveCapacity(views * 220)
    for i in 0..<views {
        if i > 0 { text += "," }
        text += "\"view\(i)\":{\"parent\":\"root\",\"frame\":{\"x\":\(i % 7),\"y\":\(i * 3 + seed),"
            + "\"width\":120,\"height\":44},\"intrinsic\":{\"width\":80}}"
    }
    text += "},\"constraints\":{"
    for i in 0..<views {
        if i > 0 { text += "," }
        text += "\"c\(i)\":{\"first\":\"view\(i).leading\",\"second\":\"root.leading\",\"constant\":\(i + seed)}"
    }
    return Array((text + "}}").utf8)
}

/// A one-constant merge patch.
func constantPatch(_ constraint: Int, _ value: Int) -> [UInt8] {
    Array("{\"constraints\":{\"c\(constraint)\":{\"constant\":\(value)}}}".utf8)
}

/// Runs `body(i)` on `count` threads started together; returns when all are done.
func concurrently(_ count: Int, _ body: @escaping @Sendable (Int) -> Void) {
    final class Start: @unchecked Sendable {
        var mutex = pthread_mutex_t()
        var cond = pthread_cond_t()
        var go = false
        init() { pthread_mutex_init(&mutex, nil); pthread_cond_init(&cond, nil) }
    }
    let start = Start()
    final class Box { let run: () -> Void; init(_ r: @escaping () -> Void) { run = r } }
    var threads: [pthread_t] = []
    for i in 0..<count {
        var t = pthread_t()
        let box = Unmanaged.passRetained(Box {
            pthread_mutex_lock(&start.mutex)
            while !start.go { pthread_cond_wait(&start.cond, &start.mutex) }
            pthread_mutex_unlock(&start.mutex)
            body(i)
        }).toOpaque()
        pthread_create(&t, nil, { raw in
            Unmanaged<Box>.fromOpaque(raw!).takeRetainedValue().run()
            return nil
        }, box)
        threads.append(t)
    }
    pthread_mutex_lock(&start.mutex)
    start.go = true
    pthread_cond_broadcast(&start.cond)
    pthread_mutex_unlock(&start.mutex)
    for t in threads { pthread_join(t, nil) }
}
