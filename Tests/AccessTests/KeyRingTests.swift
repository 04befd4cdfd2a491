@testable import Access
import Foundation
import Primitives
import TestSupport
import Testing

/// What a ring reported, for the tests to read.
final class EventLog: @unchecked Sendable {
    private let events = Locked<[KeyRingEvent]>([])
    var all: [KeyRingEvent] { events.withLock { $0 } }
    func append(_ event: KeyRingEvent) { events.withLock { $0.append(event) } }

    var rejections: [KeyFileError] {
        all.compactMap { if case .rejected(let e) = $0 { return e } else { return nil } }
    }
    var reloads: [Int] {
        all.compactMap { if case .reloaded(let n) = $0 { return n } else { return nil } }
    }
}

@Suite("KeyRing: the daemon's keys, read again on a change")
struct KeyRingTests {
    static func line(_ name: String, _ key: String, tenant: String = "acme", extra: String = "") -> String {
        KeyFile.line(for: APIKeyRecord(name: name, tenant: tenant, digest: APIKeys.digest(of: key))) + extra + "\n"
    }

    @Test("the right key is its record, a wrong or revoked one is nil; tenants are sorted and distinct")
    func authenticates() throws {
        let folder = try TemporaryFolder()
        let a = APIKeys.generate(), b = APIKeys.generate(), c = APIKeys.generate()
        let path = try folder.write("keys", Self.line("a", a, tenant: "zeta") + Self.line("b", b, tenant: "acme") + Self.line("c", c, tenant: "zeta"))
        let ring = try KeyRing(path: path)
        #expect(ring.authenticate(bearer: a)?.name == "a")
        #expect(ring.authenticate(bearer: b)?.tenant == "acme")
        #expect(ring.authenticate(bearer: APIKeys.generate()) == nil)
        #expect(ring.authenticate(bearer: "") == nil)
        #expect(ring.authenticate(bearer: String(a.dropLast())) == nil)
        #expect(ring.count == 3 && ring.tenants == ["acme", "zeta"])
        #expect(ring.record(named: "c")?.digest == APIKeys.digest(of: c))

        try folder.write("keys", Self.line("b", b, tenant: "acme") + Self.line("c", c, tenant: "zeta"))
        #expect(ring.reload())
        #expect(ring.authenticate(bearer: a) == nil && ring.record(named: "a") == nil)
        #expect(ring.authenticate(bearer: b)?.name == "b")
        #expect(!ring.reload(), "nothing changed")
    }

    @Test("a malformed file at start is an error naming its line; a missing one says it cannot be read")
    func malformedAtStart() throws {
        let folder = try TemporaryFolder()
        let path = try folder.write("keys", Self.line("a", APIKeys.generate()) + "b tenant=x\n")
        #expect(throws: KeyFileError(path: path, line: 2, message: "missing sha256=")) { try KeyRing(path: path) }
        #expect(throws: KeyFileError.self) { try KeyRing(path: folder.file("absent")) }
    }

    @Test("the watcher sees a key added in place and a key revoked by a rename, and reports each reload")
    func watcherReloads() throws {
        let folder = try TemporaryFolder()
        let a = APIKeys.generate(), b = APIKeys.generate()
        let path = try folder.write("keys", Self.line("a", a))
        let events = EventLog()
        let ring = try KeyRing(path: path, onEvent: events.append)
        ring.startWatching(interval: 0.05)
        defer { ring.stop() }

        try folder.append("keys", Self.line("b", b))
        #expect(eventually { ring.authenticate(bearer: b) != nil })

        // As `layoutd keys revoke` does: a new file renamed over the old one.
        try KeyFile.revoke(name: "a", in: path)
        #expect(eventually { ring.authenticate(bearer: a) == nil })
        #expect(ring.authenticate(bearer: b)?.name == "b")
        #expect(events.reloads == [2, 1])
    }

    @Test("a malformed file later keeps the keys read before and reports .rejected once, without the key")
    func malformedLaterKeepsKeys() throws {
        let folder = try TemporaryFolder()
        let a = APIKeys.generate()
        let path = try folder.write("keys", Self.line("a", a))
        let events = EventLog()
        let ring = try KeyRing(path: path, onEvent: events.append)
        ring.startWatching(interval: 0.05)
        defer { ring.stop() }

        // The operator pasted the key itself into the file by mistake.
        try folder.write("keys", "# edited\n" + Self.line("a", a, extra: " rat=5") + "\(a)\n")
        #expect(eventually { !events.rejections.isEmpty })
        let error = try #require(events.rejections.first)
        #expect(error.line == 2 && error.message == "unknown field 'rat=5'")
        #expect(ring.authenticate(bearer: a)?.name == "a", "the previous keys stay in effect")
        #expect(!events.all.contains { "\($0)".contains(a) })

        // Fixed: read again and reported as a reload.
        let b = APIKeys.generate()
        try folder.write("keys", Self.line("b", b))
        #expect(eventually { ring.authenticate(bearer: b) != nil })
        #expect(ring.authenticate(bearer: a) == nil)
        #expect(events.rejections.count == 1, "one report per change, not one per check")
    }

    @Test("a removed file keeps the keys and is reported as unreadable; reload() without a change returns false")
    func removedFile() throws {
        let folder = try TemporaryFolder()
        let a = APIKeys.generate()
        let path = try folder.write("keys", Self.line("a", a))
        let events = EventLog()
        let ring = try KeyRing(path: path, onEvent: events.append)
        #expect(!ring.reload() && events.all.isEmpty)
        try FileManager.default.removeItem(atPath: path)
        #expect(!ring.reload())
        guard case .unreadable(let reported, let code)? = events.all.last else {
            Issue.record("expected .unreadable, got \(events.all)")
            return
        }
        #expect(reported == path && code == ENOENT)
        #expect(ring.authenticate(bearer: a)?.name == "a")
    }

    @Test("stop() ends the watcher: a change after it is not read")
    func stopEndsWatching() throws {
        let folder = try TemporaryFolder()
        let a = APIKeys.generate(), b = APIKeys.generate()
        let path = try folder.write("keys", Self.line("a", a))
        let events = EventLog()
        let ring = try KeyRing(path: path, onEvent: events.append)
        ring.startWatching(interval: 0.02)
        try folder.write("keys", Self.line("b", b))
        #expect(eventually { ring.authenticate(bearer: b) != nil })
        ring.stop()
        try folder.write("keys", Self.line("a", a))
        // The watcher checked every 20 ms: 25 of its intervals pass without a reload.
        #expect(!eventually(timeout: 0.5) { ring.authenticate(bearer: a) != nil })
        #expect(events.reloads == [1])
    }
}
