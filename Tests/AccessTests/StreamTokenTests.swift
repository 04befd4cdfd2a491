import Access
import Testing

@Suite("Stream tokens: session-scoped, short-lived, ended by revoking the key")
struct StreamTokenTests {
    static let key = APIKeys.generate()
    static let record = APIKeyRecord(name: "web.app", tenant: "acme", digest: APIKeys.digest(of: key))

    static func lookup(_ name: String) -> APIKeyRecord? { name == record.name ? record : nil }

    @Test("a token verifies for its session until it expires, and holds neither the key nor its hash")
    func valid() {
        let token = StreamToken.issue(for: Self.record, session: "demo", expires: 2_000)
        #expect(token.hasPrefix("lt1.web.app.2000."))
        #expect(!token.contains(Self.key) && !token.contains(String(Self.key.dropFirst(3))))
        #expect(StreamToken.verify(token, session: "demo", now: 1_999, lookup: Self.lookup) == Self.record)
        #expect(StreamToken.verify(token, session: "demo", now: 2_000, lookup: Self.lookup) == nil, "expired")
        #expect(StreamToken.verify(token, session: "demo", now: 5_000, lookup: Self.lookup) == nil, "expired")
    }

    @Test("another session, another tenant's record or a key revoked or replaced under the same name: nil")
    func wrongScope() {
        let token = StreamToken.issue(for: Self.record, session: "demo", expires: 2_000)
        #expect(StreamToken.verify(token, session: "demo2", now: 1_000, lookup: Self.lookup) == nil)
        #expect(StreamToken.verify(token, session: "demo", now: 1_000, lookup: { _ in nil }) == nil, "revoked")
        var rotated = Self.record
        rotated.digest = APIKeys.digest(of: APIKeys.generate())
        #expect(StreamToken.verify(token, session: "demo", now: 1_000, lookup: { _ in rotated }) == nil, "a new key under the same name")
        var moved = Self.record
        moved.tenant = "other"
        #expect(StreamToken.verify(token, session: "demo", now: 1_000, lookup: { _ in moved }) == nil, "the name moved to another tenant")
    }

    @Test("a tampered or malformed token is nil")
    func tampered() {
        let token = StreamToken.issue(for: Self.record, session: "demo", expires: 2_000)
        var mac = Array(token.split(separator: ".").last!.utf8)
        mac[0] = mac[0] == UInt8(ascii: "A") ? UInt8(ascii: "B") : UInt8(ascii: "A")
        let forged = [
            token.replacingOccurrences(".2000.", with: ".9000."),           // a later expiry
            token.replacingOccurrences(".2000.", with: ".02000."),          // the same expiry, written otherwise
            "lt1.web.app.2000." + String(decoding: mac, as: UTF8.self),    // one MAC character changed
            String(token.dropLast()),
            token + "A",
            token.replacingOccurrences("lt1.", with: "lt2."),
            "lt1.web.app.2000",
            "lt1..2000." + token.split(separator: ".").last!,
            "",
            "lt1.web.app.-5." + token.split(separator: ".").last!,
            String(repeating: "lt1.", count: 100),
        ]
        for f in forged {
            #expect(StreamToken.verify(f, session: "demo", now: 1_000, lookup: Self.lookup) == nil, "\(f)")
        }
    }
}

extension String {
    fileprivate func replacingOccurrences(_ target: String, with replacement: String) -> String {
        split(separator: target, omittingEmptySubsequences: false).joined(separator: replacement)
    }
}
