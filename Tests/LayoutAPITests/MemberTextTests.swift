import JSON
import LayoutModel
import TestSupport
import Testing
@testable import LayoutAPI

/// `MemberText.merge` must give, byte for byte, what parsing the member, merging the patch as
/// trees and writing the result gives: the canonical text a PATCH keeps depends on it.
@Suite("Merge patches on a member's canonical text")
struct MemberTextTests {
    static func reference(_ member: JSONValue, _ patch: JSONObject) -> [UInt8] {
        JSONWriter.serialize(member.applyingMergePatch(.object(patch)))
    }

    static func text(_ member: JSONValue) -> ArraySlice<UInt8> { JSONWriter.serialize(member)[...] }

    /// A patch for `member`: some of its own keys (changed, removed or merged into) and new ones.
    static func randomPatch(for member: JSONObject, _ rng: inout SeededGenerator) -> JSONObject {
        let scalars: [JSONValue] = [.number(0), .number(-12.5), .number(1e-7), .number(1000), .bool(true), .bool(false),
                                    .string("a.leading == b.trailing + 8"), .string("q\"u{o}t[e],\\"), .string(""),
                                    .array([.number(1), .string("]}")]), .object(JSONObject()),
                                    .object(JSONObject([("width", .number(10)), ("gone", .null)]))]
        var patch = JSONObject()
        for key in member.keys where Bool.random(using: &rng) {
            switch Int.random(in: 0..<4, using: &rng) {
            case 0: patch[key] = .null
            case 1: patch[key] = member[key]  // unchanged value
            case 2:
                if case .object(let inner) = member[key]!, !inner.isEmpty {
                    patch[key] = .object(randomPatch(for: inner, &rng))
                } else {
                    patch[key] = scalars.randomElement(using: &rng)!
                }
            default: patch[key] = scalars.randomElement(using: &rng)!
            }
        }
        for k in 0..<Int.random(in: 0...2, using: &rng) {
            patch["new\(k)"] = Bool.random(using: &rng) ? scalars.randomElement(using: &rng)! : .null
        }
        return patch
    }

    @Test("every member of every conformance document, under random patches", arguments: T.conformanceCases())
    func conformanceMembers(_ name: String) throws {
        let document = DocumentParser.canonicalize(try T.conformance(name)["document"] ?? .null)
        var rng = SeededGenerator(seed: UInt64(name.utf8.reduce(7) { $0 &* 31 &+ UInt64($1) }))
        var checked = 0
        for group in ["views", "constraints"] {
            guard case .object(let members) = document[group] ?? .null else { continue }
            for member in members.values {
                guard case .object(let object) = member else { continue }
                for _ in 0..<8 {
                    let patch = Self.randomPatch(for: object, &rng)
                    let merged = try #require(MemberText.merge(Self.text(member), patch))
                    #expect(merged == Self.reference(member, patch),
                            "\(T.text(member)) + \(T.text(.object(patch)))")
                    checked += 1
                }
            }
        }
        #expect(checked > 0)
    }

    @Test("edge cases: empty objects, strings with braces and escapes, nested merges, non-object members")
    func edges() throws {
        let cases: [(String, String)] = [
            (#"{}"#, #"{"a":1}"#),
            (#"{"a":1}"#, #"{"a":null}"#),
            (#"{"a":"}{,\"\\","b":[1,{"c":"]"}],"d":{"e":{"f":2}}}"#, #"{"d":{"e":{"f":null,"g":[3]}},"b":null,"z":{"y":null}}"#),
            (#"{"frame":{"width":390}}"#, #"{"frame":{"width":867}}"#),
            (#"{"frame":{"width":390,"height":20}}"#, #"{"frame":{"width":null,"height":null}}"#),
            (#"{"hidden":true,"frame":5}"#, #"{"frame":{"width":1,"x":null}}"#),
            (#"{"a":1,"b":2,"c":3}"#, #"{"b":null,"a":null,"c":null}"#),
        ]
        for (memberText, patchText) in cases {
            let member = try JSONParser.parse(memberText)
            guard case .object(let patch) = try JSONParser.parse(patchText) else { continue }
            let merged = try #require(MemberText.merge(Self.text(member), patch))
            #expect(String(decoding: merged, as: UTF8.self)
                    == String(decoding: Self.reference(member, patch), as: UTF8.self), "\(memberText) + \(patchText)")
        }
        // A number JSON cannot write (1e400 parses as infinity): left to the tree merge, whose
        // validation sees the number.
        #expect(MemberText.merge(Self.text(.object(JSONObject([("constant", .number(1))]))),
                                 JSONObject([("constant", .number(.infinity))])) == nil)
        #expect(MemberText.merge(Self.text(.object(JSONObject())),
                                 JSONObject([("a", .array([.number(-.infinity)]))])) == nil)
        // Not an object (an expression string): left to the tree merge.
        #expect(MemberText.merge(Self.text(.string("a.width == 10")), JSONObject([("x", .number(1))])) == nil)
        // Text that is not one compact object: left to the tree merge too.
        for bad in [#"{"a":1,}"#, #"{"a"1}"#, #"{"a":1} "#, #"{"a":"1}"#, "{", ""] {
            #expect(MemberText.merge(Array(bad.utf8)[...], JSONObject([("x", .number(1))])) == nil, "\(bad)")
        }
    }
}
