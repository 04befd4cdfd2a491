import JSON
import Testing

/// Large objects check their keys for repeats over bytes while parsing and build their key → position
/// table on the first lookup (JSONObject, KeyIndex): the answers are those of a table built with the
/// object, which these scenarios hold them to.
@Suite("Large objects: keys checked over bytes, looked up on demand")
struct JSONObjectKeyIndexTests {
    static func largeText(_ names: [String]) -> String {
        "{" + names.enumerated().map { "\"\($1)\":\($0)" }.joined(separator: ",") + "}"
    }

    @Test("the first repeat in key order is reported, at its own offset, when several keys repeat")
    func firstRepeatReported() throws {
        let names = (0..<30).map { "key\($0)" } + ["key9", "key3"]
        let text = Self.largeText(names)
        let e = try #require(parseError(text))
        #expect(e.message == #"duplicate key "key9" in object"#)
        let offset = try #require(text.utf8.indices.firstIndex { text.utf8[$0...].starts(with: #","key9":30"#.utf8) })
        #expect(e.offset == text.utf8.distance(from: text.utf8.startIndex, to: offset) + 1)
    }

    @Test("keys outside ASCII that Swift compares equal (precomposed and decomposed é) are duplicates in a large object")
    func canonicallyEquivalentKeysRepeat() throws {
        let names = (0..<20).map { "k\($0)" } + ["caf\u{E9}", "cafe\u{301}"]
        let e = try #require(parseError(Self.largeText(names)))
        #expect(e.message.hasPrefix("duplicate key"))
    }

    @Test("a large object with keys outside ASCII, all distinct, parses and looks each one up")
    func distinctNonASCIIKeys() throws {
        let names = (0..<20).map { "ключ\($0)" }
        let o = try #require(try JSONParser.parse(Self.largeText(names)).objectValue)
        for (i, name) in names.enumerated() { #expect(o[name] == .number(Double(i))) }
    }

    @Test("keys whose hashes collide in a small table are still told apart")
    func manyKeysManyProbes() throws {
        let names = (0..<5_000).map { "v\($0 * 7919 % 5_000)" }
        let o = try #require(try JSONParser.parse(Self.largeText(names)).objectValue)
        #expect(o.count == 5_000)
        for (i, name) in names.enumerated() where i % 97 == 0 { #expect(o.position(of: name) == i) }
    }

    @Test("a copy that gains a key does not change what the original looks up")
    func copyGainsKey() throws {
        let names = (0..<20).map { "k\($0)" }
        let original = try #require(try JSONParser.parse(Self.largeText(names)).objectValue)
        #expect(original["k3"] == .number(3))  // the table is filled, then shared by the copy
        var copy = original
        copy["added"] = .bool(true)
        copy["k3"] = nil
        #expect(original["added"] == nil)
        #expect(original["k3"] == .number(3))
        #expect(original.position(of: "k19") == 19)
        #expect(copy["added"] == .bool(true))
        #expect(copy["k3"] == nil)
        #expect(copy.position(of: "k19") == 18)
        #expect(copy.position(of: "added") == 19)
    }

    @Test("an object grown one key at a time past the threshold finds every key, before and after removals")
    func grownObject() {
        var o = JSONObject()
        for i in 0..<40 {
            o["n\(i)"] = .number(Double(i))
            #expect(o.position(of: "n\(i / 2)") == i / 2)
        }
        o["n0"] = nil
        #expect(o.position(of: "n39") == 38)
        #expect(o["n0"] == nil)
        o["n0"] = .null
        #expect(o.position(of: "n0") == 39)
    }

    @Test("copies of one large object looked up from many tasks at once agree")
    func concurrentFirstLookups() async throws {
        let names = (0..<200).map { "id\($0)" }
        let o = try #require(try JSONParser.parse(Self.largeText(names)).objectValue)
        let found = await withTaskGroup(of: Bool.self) { group in
            for t in 0..<8 {
                group.addTask { names.indices.allSatisfy { o.position(of: names[($0 + t) % names.count]) == ($0 + t) % names.count } }
            }
            return await group.reduce(true) { $0 && $1 }
        }
        #expect(found)
    }
}
