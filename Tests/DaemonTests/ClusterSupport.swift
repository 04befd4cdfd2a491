import Foundation
import JSON
import LayoutModel
import Testing
import TestSupport

/// One layoutd node of the test cluster.
struct ClusterNode: Sendable {
    let name: String
    let port: Int
}

/// The cluster that scripts/test starts before `swift test` (`scripts/cluster up --nodes 3`:
/// PostgreSQL, three layoutd nodes, nginx with deploy/nginx/layoutd.conf). `LAYOUTD_TEST_CLUSTER`
/// holds the JSON line `up` printed, or, when it did not start, why; `LAYOUTD_CLUSTER_DIR` its state
/// directory, which `scripts/cluster kill|start` need.
struct Cluster: Sendable {
    /// nginx's port.
    let port: Int
    let nodes: [ClusterNode]
    let postgres: String

    static let line = ProcessInfo.processInfo.environment["LAYOUTD_TEST_CLUSTER"] ?? ""

    /// The cluster suite runs whenever scripts/test tried to start a cluster: a cluster that did not
    /// start fails its tests (with the reason) rather than skipping them.
    static var isConfigured: Bool { !line.isEmpty }

    static func current() throws -> Cluster { try parse(line) }

    /// The cluster of a JSON line of `scripts/cluster up`.
    static func parse(_ line: String) throws -> Cluster {
        guard let value = try? JSONParser.parse(Array(line.utf8)),
              let url = value["url"]?.stringValue, let port = Self.port(of: url),
              let list = value["nodes"]?.arrayValue, let postgres = value["postgres"]?.stringValue
        else { throw TestFailure("no cluster to test: LAYOUTD_TEST_CLUSTER=\(line)") }
        let nodes = list.compactMap { node -> ClusterNode? in
            guard let name = node["name"]?.stringValue, let port = node["url"]?.stringValue.flatMap(Self.port(of:)) else { return nil }
            return ClusterNode(name: name, port: port)
        }
        guard nodes.count == list.count, nodes.count >= 2 else { throw TestFailure("the cluster needs at least two nodes: \(line)") }
        return Cluster(port: port, nodes: nodes, postgres: postgres)
    }

    private static func port(of url: String) -> Int? {
        url.split(separator: ":").last.flatMap { Int($0.prefix { $0.isNumber }) }
    }

    func nginx(timeout: Double = 10) throws -> RawHTTPConnection { try RawHTTPConnection(port: port, timeoutSeconds: timeout) }

    func connect(_ node: ClusterNode, timeout: Double = 10) throws -> RawHTTPConnection {
        try RawHTTPConnection(port: node.port, timeoutSeconds: timeout)
    }

    /// The node whose address nginx put in `X-Layoutd-Node` (the last one tried).
    func node(answering response: RawHTTPResponse) -> ClusterNode? {
        guard let tried = response.header("X-Layoutd-Node")?.split(separator: ",").last else { return nil }
        let port = Int(tried.split(separator: ":").last?.stripping(" ") ?? "")
        return nodes.first { $0.port == port }
    }

    // MARK: scripts/cluster

    private static let packageRoot = URL(fileURLWithPath: #filePath)  // Tests/DaemonTests/ClusterSupport.swift
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// Runs `scripts/cluster ARGUMENTS…` on the tests' cluster (another one with `environment`'s
    /// `LAYOUTD_CLUSTER_DIR`); throws with its messages when it fails.
    @discardableResult
    static func script(_ arguments: [String], environment: [String: String] = [:], timeout: Double = 60) throws -> String {
        let process = Process()
        if !environment.isEmpty {
            process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        }
        process.executableURL = URL(fileURLWithPath: "/bin/bash")
        process.arguments = [packageRoot.appendingPathComponent("scripts/cluster").path] + arguments
        let out = Pipe(), err = Pipe()
        let outText = OutputCollector(), errText = OutputCollector()
        out.fileHandleForReading.readabilityHandler = { outText.append($0.availableData) }
        err.fileHandleForReading.readabilityHandler = { errText.append($0.availableData) }
        process.standardOutput = out
        process.standardError = err
        process.standardInput = FileHandle.nullDevice
        try process.run()
        let exit = ChildExit(process)
        guard exit.wait(timeout: timeout) else {
            exit.kill()
            throw TestFailure("scripts/cluster \(arguments.joined(separator: " ")) took more than \(timeout) s")
        }
        // The readability handlers catch the last bytes (see LayoutdBinary.run).
        _ = eventually(timeout: 1) { outText.ended && errText.ended }
        out.fileHandleForReading.readabilityHandler = nil
        err.fileHandleForReading.readabilityHandler = nil
        outText.append(out.fileHandleForReading.readDataToEndOfFile())
        errText.append(err.fileHandleForReading.readDataToEndOfFile())
        guard exit.shellStatus == 0 else {
            throw TestFailure("scripts/cluster \(arguments.joined(separator: " ")) failed (\(exit.shellStatus)): \(errText.text)")
        }
        return outText.text
    }

    /// kill -9 of a node, `nginx` or `postgres`.
    func kill(_ name: String) throws { try Self.script(["kill", name]) }

    /// A clean stop of a node (SIGTERM), `nginx` or `postgres` (fast shutdown).
    func stop(_ name: String) throws { try Self.script(["stop", name]) }

    /// Starts a component again (nothing when it runs).
    func start(_ name: String) throws { try Self.script(["start", name]) }

    /// Everything running again, as the next test expects it: run at the end of each test that
    /// kills something, whether it passed or not.
    func restore() {
        for name in ["postgres"] + nodes.map(\.name) + ["nginx"] {
            do { try start(name) } catch { Issue.record("restoring the cluster: \(error)") }
        }
    }

    // MARK: reading

    /// Everything a client reads of a session through one connection: the document, the frames and
    /// the absolute frames, each as status, ETag and body.
    static func reading(_ c: RawHTTPConnection, _ id: String) throws -> [String] {
        try ["/v1/sessions/\(id)", "/v1/sessions/\(id)/frames", "/v1/sessions/\(id)?coordinates=absolute"].map {
            let r = try c.get($0)
            return "\(r.status) \(r.header("ETag") ?? "-") \(r.text)"
        }
    }

    /// What nginx and every node answer for the session, by where it was read ("nginx", "node1", …).
    func readings(_ id: String) throws -> [String: [String]] {
        var out = ["nginx": try Self.reading(try nginx(), id)]
        for node in nodes { out[node.name] = try Self.reading(try connect(node), id) }
        return out
    }

    /// Waits (up to `timeout`) until nginx and every node answer the same for the session, at
    /// `revision` when given; returns the last readings. A node that held an older copy may answer
    /// from it for the bounded time the store takes to tell it (docs/deploy.md), hence the wait.
    @discardableResult
    func awaitSameEverywhere(_ id: String, revision: Int? = nil, timeout: Double = 10) throws -> [String: [String]] {
        func agree(_ all: [String: [String]]) -> Bool {
            let same = Set(all.values).count == 1
            let atRevision = revision.map { r in all.values.allSatisfy { $0[0].contains(#""revision":\#(r),"#) } } ?? true
            return same && atRevision
        }
        let all = try eventually(timeout: timeout, pollEvery: 0.05, { try readings(id) }, satisfies: agree)
        if agree(all) { return all }
        let lines = all.sorted { $0.key < $1.key }.map { "\($0.key): \($0.value[0].prefix(160))" }
        throw TestFailure("\(id): not the same answer everywhere\(revision.map { " at revision \($0)" } ?? "") after \(timeout) s:\n\(lines.joined(separator: "\n"))")
    }

    /// The session's canonical document and revision, read through `c`.
    static func document(_ c: RawHTTPConnection, _ id: String) throws -> (document: [UInt8], revision: Int) {
        let r = try c.get("/v1/sessions/\(id)")
        guard r.status == 200, let revision = r.header("ETag").etagRevision, let document = try r.json()["document"] else {
            throw TestFailure("GET \(id): \(r.status) \(r.text.prefix(200))")
        }
        return (JSONWriter.serialize(document), revision)
    }

    /// A session id no other test or run uses.
    static func newID(_ prefix: String) -> String {
        "\(prefix)-\(UUID().uuidString.prefix(8).lowercased())"
    }
}

/// What the clients of one session saw: every PATCH in the order sent, with the revision it was
/// acknowledged as, or the status it failed with.
final class ClusterLedger: @unchecked Sendable {
    struct Entry {
        var patch: String
        var revision: Int?
        var status: Int  // 0: no answer (the connection failed)
    }

    private let lock = NSLock()
    private var entries: [Entry] = []

    func record(_ patch: String, _ response: RawHTTPResponse?) {
        let entry = Entry(patch: patch, revision: response?.status == 200 ? response?.header("ETag").etagRevision : nil,
                          status: response?.status ?? 0)
        lock.withLock { entries.append(entry) }
    }

    var all: [Entry] { lock.withLock { entries } }
    var acknowledged: Int { lock.withLock { entries.filter { $0.revision != nil }.count } }

    /// Whether `document` at `revision` is `base` with exactly the acknowledged PATCHes of one
    /// sequential client applied in order, plus any of its failed PATCHes that the store took
    /// before their node died: the revisions between two acknowledged ones say how many of the
    /// failed PATCHes sent between them were applied; each choice of which is tried.
    static func replays(_ entries: [Entry], base: [UInt8], to document: [UInt8], revision: Int) throws -> Bool {
        // Segments: the failed PATCHes sent before an acknowledged one (how many of them the store
        // took), then that acknowledged one; the last segment has no acknowledged PATCH.
        var segments: [(failed: [String], applied: Int, acknowledged: String?)] = []
        var previous = 1
        var failed: [String] = []
        for entry in entries {
            guard let r = entry.revision else { failed.append(entry.patch); continue }
            guard r > previous, r - previous - 1 <= failed.count else { return false }
            segments.append((failed, r - previous - 1, entry.patch))
            failed = []
            previous = r
        }
        guard revision >= previous, revision - previous <= failed.count else { return false }
        segments.append((failed, revision - previous, nil))
        // Every way to pick the applied PATCHes of each segment (the few that failed at a kill).
        var candidates: [[String]] = [[]]
        for segment in segments {
            let picks = Self.subsets(of: segment.failed, size: segment.applied)
            let tail = segment.acknowledged.map { [$0] } ?? []
            candidates = candidates.flatMap { prefix in picks.map { prefix + $0 + tail } }
            guard candidates.count <= 4096 else { throw TestFailure("too many failed PATCHes to tell which were applied") }
        }
        return try candidates.contains { try DocumentParser.replay(base, patches: $0.map { Array($0.utf8) }) == document }
    }

    /// For failure messages: how many PATCHes were acknowledged, up to which revision, and where the
    /// others failed (their index among the PATCHes sent, their status, the last revision before).
    static func summary(_ entries: [Entry]) -> String {
        var last = 1
        var failures: [String] = [], backwards: [String] = []
        for (index, entry) in entries.enumerated() {
            if let r = entry.revision {
                if r <= last { backwards.append("#\(index) at \(r) after \(last)") }
                last = r
            } else {
                failures.append("#\(index) \(entry.status) after \(last)")
            }
        }
        return "\(entries.count - failures.count) acknowledged up to revision \(last); failed: \(failures); "
            + "acknowledged at a revision not above the one before: \(backwards)"
    }

    /// The ordered subsets of `items` with `size` elements.
    private static func subsets(of items: [String], size: Int) -> [[String]] {
        if size == 0 { return [[]] }
        if items.count < size { return [] }
        let rest = Array(items.dropFirst())
        return subsets(of: rest, size: size - 1).map { [items[0]] + $0 } + subsets(of: rest, size: size)
    }
}

/// A Server-Sent Events subscriber that reconnects with `Last-Event-ID` whenever its stream ends,
/// and applies every event to the frames it holds.
final class ClusterSubscriber: @unchecked Sendable {
    struct Event {
        var revision: Int
        var all: Bool
        /// Which connection (0, 1, …) it came on.
        var connection: Int
    }

    private let lock = NSLock()
    private var events: [Event] = []
    private var frames: [String: JSONValue] = [:]
    private var connections = 0
    private var firstNode: ClusterNode?
    private var stopped = false
    private var problems: [String] = []
    private let done = DispatchSemaphore(value: 0)

    /// Starts subscribing to `id` through `port` on a thread of its own; returns once the first
    /// stream is open (its head read), so the caller knows which node serves it.
    init(cluster: Cluster, port: Int, id: String) throws {
        let opened = DispatchSemaphore(value: 0)
        Thread.detachNewThread { [self] in
            run(cluster: cluster, port: port, id: id, opened: opened)
            done.signal()
        }
        guard opened.wait(timeout: .now() + 15) == .success, connectionCount > 0 else {
            throw TestFailure("the event stream of \(id) did not open: \(lock.withLock { problems })")
        }
    }

    var connectionCount: Int { lock.withLock { connections } }
    var seen: [Event] { lock.withLock { events } }
    var lastRevision: Int? { lock.withLock { events.last?.revision } }
    var node: ClusterNode? { lock.withLock { firstNode } }
    var errors: [String] { lock.withLock { problems } }
    /// The frames the events add up to.
    var heldFrames: [String: JSONValue] { lock.withLock { frames } }

    /// Waits until an event at `revision` (or later) arrived.
    func awaitRevision(_ revision: Int, timeout: Double) -> Bool {
        eventually(timeout: timeout, pollEvery: 0.02) { (lastRevision ?? Int.min) >= revision }
    }

    func stop() {
        lock.withLock { stopped = true }
        _ = done.wait(timeout: .now() + 25)
    }

    private var isStopped: Bool { lock.withLock { stopped } }

    private func run(cluster: Cluster, port: Int, id: String, opened: DispatchSemaphore) {
        var signalled = false
        defer { if !signalled { opened.signal() } }
        let deadline = Date().addingTimeInterval(120)
        while !isStopped && Date() < deadline {
            do {
                let c = try RawHTTPConnection(port: port, timeoutSeconds: 2)
                var headers: [(String, String)] = []
                if let last = lastRevision { headers.append(("Last-Event-ID", String(last))) }
                try c.sendRequest("GET", "/v1/sessions/\(id)/events", headers: headers)
                let head = try c.readResponseHead()
                guard head.status == 200 else {
                    lock.withLock { problems.append("events answered \(head.status)") }
                    usleep(100_000)  // a back-off before asking again, not a wait for a condition
                    continue
                }
                let connection = lock.withLock {
                    connections += 1
                    if firstNode == nil { firstNode = cluster.node(answering: head) }
                    return connections - 1
                }
                if !signalled { opened.signal(); signalled = true }
                try read(c, connection: connection)
            } catch {
                // The stream ended (its node died) or could not open yet: reconnect, after a
                // back-off (not a wait for a condition: the next attempt is the check).
                usleep(50_000)
            }
        }
    }

    /// Reads events until the stream ends or the subscriber is stopped (a quiet socket times out
    /// every 2 s so that a stop is seen).
    private func read(_ c: RawHTTPConnection, connection: Int) throws {
        var text = ""
        while !isStopped {
            let chunk: [UInt8]?
            do { chunk = try c.readChunk() } catch let failure as TestFailure where failure.description.contains("timed out") {
                continue
            }
            guard let chunk else { return }
            text += String(decoding: chunk, as: UTF8.self)
            while let end = text.range(of: "\n\n") {
                let block = String(text[..<end.lowerBound])
                text = String(text[end.upperBound...])
                try apply(block, connection: connection)
            }
        }
    }

    private func apply(_ block: String, connection: Int) throws {
        var name = "", data = ""
        for line in block.split(separator: "\n") {
            if line.hasPrefix("event: ") { name = String(line.dropFirst(7)) }
            if line.hasPrefix("data: ") { data = String(line.dropFirst(6)) }
        }
        guard name == "revision" else { return }
        let value = try JSONParser.parse(Array(data.utf8))
        guard let revision = value["revision"]?.numberValue.map(Int.init), let all = value["all"]?.boolValue,
              let changed = value["frames"]?.objectValue else { throw TestFailure("bad event: \(data)") }
        lock.withLock {
            if all { frames = [:] }
            for (view, frame) in changed.entries { frames[view] = frame }
            for removed in value["removed"]?.arrayValue ?? [] { if let view = removed.stringValue { frames[view] = nil } }
            events.append(Event(revision: revision, all: all, connection: connection))
        }
    }

    /// What is wrong with the order of the events: each stream starts with a snapshot (`all`) at a
    /// revision not older than the last one seen, or with the revision after it; every later event
    /// is the next revision.
    func orderProblems() -> [String] {
        var out: [String] = []
        var last: Int?
        var connection = -1
        for event in seen {
            if event.connection != connection {
                connection = event.connection
                if let previous = last {
                    let fine = event.all ? event.revision >= previous : event.revision == previous + 1
                    if !fine { out.append("stream \(connection) began at \(event.revision) (all: \(event.all)) after \(previous)") }
                } else if !event.all {
                    out.append("the first stream began with a delta at \(event.revision)")
                }
            } else if event.all || event.revision != (last ?? 0) + 1 {
                out.append("revision \(event.revision) (all: \(event.all)) after \(last ?? 0) on stream \(connection)")
            }
            last = event.revision
        }
        return out
    }
}
