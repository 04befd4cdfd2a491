import ArgumentParser
import Foundation
import JSON
import LayoutModel
import SQLiteStorage
import Storage

/// `layout-bench store`: the SQLite session store's costs, one JSON line per case (docs/benchmarks.md).
struct StoreBench: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "store",
        abstract: "Time the SQLite session store: append, create, load, open, group commit.",
        discussion: """
        Cases (one JSON line each), on files under --directory:
          append   one-constant merge patches to a session of --views views (default 5,000) and of
                   50 views, sync everysec: per-call time and the bytes each hands to write(2)
                   (snapshots, written when due, are not counted)
          create   new 50-view sessions
          load     a stored 1,000-view session with 50 patches after its snapshot
          open     a store of --open-sessions 50-view sessions (made once, kept for the next run): time
                   from open to the first load
          always   sync always with 1, 4 and 16 writer threads: writes/s, fsyncs/s, writes per fsync
          replay   DocumentParser.replay of 1, 10 and 100 one-constant patches on the --views document
                   (what a wake of a stored session adds before its solve)
        """)

    @Option(help: "Where the store files go (kept: the open case's big store is made once).")
    var directory = "/tmp/layout-bench-store"
    @Option(help: "Views of the append case's large session.") var views = 5_000
    @Option(help: "Sessions of the open case's store.") var openSessions = 100_000
    @Option(help: "Seconds per timed loop.") var seconds = 2.0
    @Option(help: "The cases to run, comma-separated.") var cases = "append,create,load,open,always,replay"

    func run() throws {
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let chosen = Set(cases.split(separator: ",").map(String.init))
        if chosen.contains("append") { try append() }
        if chosen.contains("create") { try create() }
        if chosen.contains("load") { try load() }
        if chosen.contains("open") { try open() }
        if chosen.contains("always") { for writers in [1, 4, 16] { try always(writers: writers) } }
        if chosen.contains("replay") { try replay() }
    }

    /// A fresh store file under the directory.
    func fresh(_ name: String, sync: StorageSync) throws -> SQLiteSessionStorage {
        let path = directory + "/" + name
        for suffix in ["", "-wal", "-shm"] { unlink(path + suffix) }
        return try SQLiteSessionStorage(path: path, sync: sync)
    }

    func append() throws {
        let store = try fresh("append.db", sync: .everysec)
        defer { store.close() }
        for n in [views, 50] {
            let doc = benchDocument(views: n)
            let id = "s\(n)"
            let g = try store.create(id: id, revision: 1, document: doc, delegates: [:])
            var times: [Double] = [], snapshots = 0, revision = 1, appendBytes = 0
            let start = DispatchTime.now().uptimeNanoseconds
            while Double(DispatchTime.now().uptimeNanoseconds - start) < seconds * 1e9 {
                revision += 1
                let patch = Array("{\"constraints\":{\"c\(revision % n)\":{\"constant\":\(revision)}}}".utf8)
                let w0 = bytesWritten()
                let t0 = DispatchTime.now().uptimeNanoseconds
                let due = try store.appendPatch(id: id, generation: g, revision: revision, patch: patch, delegates: nil).snapshotDue
                times.append(Double(DispatchTime.now().uptimeNanoseconds - t0) / 1e3)
                appendBytes += bytesWritten() - w0
                // As the API will: a due snapshot is written with the document (here: unchanged text).
                if due {
                    try store.saveSnapshot(id: id, generation: g, revision: revision, document: doc)
                    snapshots += 1
                }
            }
            emit("append", [("views", .number(Double(n))), ("document_bytes", .number(Double(doc.count))),
                            ("snapshots", .number(Double(snapshots))),
                            ("patch_bytes", .number(Double(Array("{\"constraints\":{\"c1\":{\"constant\":1}}}".utf8).count))),
                            ("written_bytes_per_append", .number(Double(appendBytes) / Double(times.count)))]
                 + stats(times, "us"))
        }
    }

    func create() throws {
        let store = try fresh("create.db", sync: .everysec)
        defer { store.close() }
        let doc = benchDocument(views: 50)
        var times: [Double] = []
        let start = DispatchTime.now().uptimeNanoseconds
        while Double(DispatchTime.now().uptimeNanoseconds - start) < seconds * 1e9 {
            let t0 = DispatchTime.now().uptimeNanoseconds
            _ = try store.create(id: "c\(times.count)", revision: 1, document: doc, delegates: [:])
            times.append(Double(DispatchTime.now().uptimeNanoseconds - t0) / 1e3)
        }
        emit("create", [("views", .number(50)), ("document_bytes", .number(Double(doc.count)))] + stats(times, "us"))
    }

    func load() throws {
        let store = try fresh("load.db", sync: .everysec)
        defer { store.close() }
        let doc = benchDocument(views: 1_000)
        let g = try store.create(id: "big", revision: 1, document: doc, delegates: [:])
        for r in 2...51 {
            try store.appendPatch(id: "big", generation: g, revision: r,
                                  patch: Array("{\"constraints\":{\"c\(r)\":{\"constant\":\(r)}}}".utf8), delegates: nil)
        }
        var times: [Double] = []
        let start = DispatchTime.now().uptimeNanoseconds
        while Double(DispatchTime.now().uptimeNanoseconds - start) < seconds * 1e9 {
            let t0 = DispatchTime.now().uptimeNanoseconds
            guard try store.load(id: "big")?.patches.count == 50 else { throw ValidationError("load lost patches") }
            times.append(Double(DispatchTime.now().uptimeNanoseconds - t0) / 1e3)
        }
        emit("load", [("views", .number(1_000)), ("document_bytes", .number(Double(doc.count))), ("patches", .number(50))]
             + stats(times, "us"))
    }

    func open() throws {
        let path = directory + "/open-\(openSessions).db"
        let made = DispatchTime.now().uptimeNanoseconds
        do {
            let store = try SQLiteSessionStorage(path: path, sync: .never)
            let have = try store.count()
            if have < openSessions {
                // Made once: creates from 4 threads share commits (group commit), as a loaded daemon's do.
                let doc = benchDocument(views: 50)
                DispatchQueue.concurrentPerform(iterations: 4) { t in
                    for i in stride(from: have + t, to: openSessions, by: 4) {
                        _ = try? store.create(id: "session-\(i)", revision: 1, document: doc, delegates: [:])
                    }
                }
            }
            store.close()
        }
        let makeSeconds = Double(DispatchTime.now().uptimeNanoseconds - made) / 1e9
        var times: [Double] = []
        for _ in 0..<5 {
            let t0 = DispatchTime.now().uptimeNanoseconds
            let store = try SQLiteSessionStorage(path: path, sync: .everysec)
            guard try store.load(id: "session-\(openSessions / 2)") != nil else { throw ValidationError("a session is missing") }
            times.append(Double(DispatchTime.now().uptimeNanoseconds - t0) / 1e6)
            store.close()
        }
        emit("open", [("sessions", .number(Double(openSessions))), ("file_bytes", .number(Double(storeBytes(path)))),
                      ("made_s", .number(makeSeconds))] + stats(times, "ms"))
    }

    func always(writers: Int) throws {
        let store = try fresh("always.db", sync: .always)
        defer { store.close() }
        let doc = benchDocument(views: 50)
        let generations = try (0..<writers).map { try store.create(id: "w\($0)", revision: 1, document: doc, delegates: [:]) }
        let s0 = store.statistics
        let t0 = DispatchTime.now().uptimeNanoseconds
        // Threads of their own (concurrentPerform would run only as many as there are CPUs).
        onThreads(writers) { w in
            var revision = 1
            while Double(DispatchTime.now().uptimeNanoseconds - t0) < seconds * 1e9 {
                revision += 1
                let patch = Array("{\"constraints\":{\"c\(revision % 50)\":{\"constant\":\(revision)}}}".utf8)
                if (try? store.appendPatch(id: "w\(w)", generation: generations[w], revision: revision, patch: patch,
                                           delegates: nil).snapshotDue) == true {
                    _ = try? store.saveSnapshot(id: "w\(w)", generation: generations[w], revision: revision, document: doc)
                }
            }
        }
        let elapsed = Double(DispatchTime.now().uptimeNanoseconds - t0) / 1e9
        let s1 = store.statistics
        let writes = Double(s1.writes - s0.writes), syncs = Double(s1.syncs - s0.syncs)
        emit("always", [("writers", .number(Double(writers))), ("writes_per_s", .number(writes / elapsed)),
                        ("fsyncs_per_s", .number(syncs / elapsed)), ("writes_per_fsync", .number(writes / max(1, syncs)))])
    }

    func replay() throws {
        for n in [50, views] {
            let doc = benchDocument(views: n)
            for count in [1, 10, 100] {
                let patches = (0..<count).map { Array("{\"constraints\":{\"c\($0 % n)\":{\"constant\":\($0)}}}".utf8) }
                var times: [Double] = []
                let start = DispatchTime.now().uptimeNanoseconds
                while times.count < 3 || Double(DispatchTime.now().uptimeNanoseconds - start) < seconds * 1e9 / 3 {
                    let t0 = DispatchTime.now().uptimeNanoseconds
                    _ = try DocumentParser.replay(doc, patches: patches)
                    times.append(Double(DispatchTime.now().uptimeNanoseconds - t0) / 1e6)
                }
                emit("replay", [("views", .number(Double(n))), ("document_bytes", .number(Double(doc.count))),
                                ("patches", .number(Double(count)))] + stats(times, "ms"))
            }
        }
    }

    /// Runs `body(i)` on `count` threads of their own; returns when all are done.
    func onThreads(_ count: Int, _ body: @escaping @Sendable (Int) -> Void) {
        let done = DispatchSemaphore(value: 0)
        for i in 0..<count {
            Thread {
                body(i)
                done.signal()
            }.start()
        }
        for _ in 0..<count { done.wait() }
    }

    /// Bytes this process has handed to write(2) so far (`wchar` of /proc/self/io).
    func bytesWritten() -> Int {
        guard let text = try? String(contentsOfFile: "/proc/self/io", encoding: .utf8) else { return 0 }
        for line in text.split(separator: "\n") where line.hasPrefix("wchar:") {
            return Int(line.dropFirst(6).trimmingCharacters(in: .whitespaces)) ?? 0
        }
        return 0
    }

    /// The database and its log, in bytes.
    func storeBytes(_ path: String) -> Int {
        [path, path + "-wal"].reduce(0) { total, p in
            total + ((try? FileManager.default.attributesOfItem(atPath: p)[.size] as? Int) ?? 0)
        }
    }

    /// A canonical-looking document: `n` views under a root, one constraint each (about 200 bytes a view).
    func benchDocument(views n: Int) -> [UInt8] {
        var views: [(String, JSONValue)] = [("root", .object(JSONObject([("frame", .object(JSONObject([
            ("x", .number(0)), ("y", .number(0)), ("width", .number(1024)), ("height", .number(768))])))])))]
        var constraints: [(String, JSONValue)] = []
        for i in 0..<n {
            views.append(("v\(i)", .object(JSONObject([("parent", .string("root")),
                                                       ("intrinsic", .object(JSONObject([("width", .number(80)), ("height", .number(20))])))]))))
            constraints.append(("c\(i)", .object(JSONObject([("first", .string("v\(i).leading")), ("relation", .string("=")),
                                                             ("second", .string("root.leading")), ("constant", .number(Double(i % 97)))]))))
        }
        return JSONWriter.serialize(.object(JSONObject([("views", .object(JSONObject(views))),
                                                        ("constraints", .object(JSONObject(constraints)))])))
    }

    func stats(_ values: [Double], _ unit: String) -> [(String, JSONValue)] {
        let v = values.sorted()
        func p(_ q: Double) -> Double { v.isEmpty ? 0 : v[min(v.count - 1, max(0, Int((q / 100 * Double(v.count)).rounded(.up)) - 1))] }
        return [("n", .number(Double(v.count))), ("\(unit)_p50", .number(p(50))), ("\(unit)_p99", .number(p(99))),
                ("\(unit)_max", .number(v.last ?? 0))]
    }

    func emit(_ name: String, _ pairs: [(String, JSONValue)]) {
        let rounded = pairs.map { k, v -> (String, JSONValue) in
            if case .number(let d) = v { return (k, .number((d * 1000).rounded() / 1000)) }
            return (k, v)
        }
        print(JSONWriter.string(.object(JSONObject([("case", .string(name))] + rounded))))
    }
}
