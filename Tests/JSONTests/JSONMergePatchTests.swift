import JSON
import Testing

@Suite("JSON Merge Patch (RFC 7396)")
struct JSONMergePatchTests {
    /// RFC 7396 Appendix A, every row: original, patch, result.
    static let appendixA: [(String, String, String)] = [
        (#"{"a":"b"}"#, #"{"a":"c"}"#, #"{"a":"c"}"#),
        (#"{"a":"b"}"#, #"{"b":"c"}"#, #"{"a":"b","b":"c"}"#),
        (#"{"a":"b"}"#, #"{"a":null}"#, #"{}"#),
        (#"{"a":"b","b":"c"}"#, #"{"a":null}"#, #"{"b":"c"}"#),
        (#"{"a":["b"]}"#, #"{"a":"c"}"#, #"{"a":"c"}"#),
        (#"{"a":"c"}"#, #"{"a":["b"]}"#, #"{"a":["b"]}"#),
        (#"{"a":{"b":"c"}}"#, #"{"a":{"b":"d","c":null}}"#, #"{"a":{"b":"d"}}"#),
        (#"{"a":[{"b":"c"}]}"#, #"{"a":[1]}"#, #"{"a":[1]}"#),
        (#"["a","b"]"#, #"["c","d"]"#, #"["c","d"]"#),
        (#"{"a":"b"}"#, #"["c"]"#, #"["c"]"#),
        (#"{"a":"foo"}"#, #"null"#, #"null"#),
        (#"{"a":"foo"}"#, #""bar""#, #""bar""#),
        (#"{"e":null}"#, #"{"a":1}"#, #"{"e":null,"a":1}"#),
        (#"[1,2]"#, #"{"a":"b","c":null}"#, #"{"a":"b"}"#),
        (#"{}"#, #"{"a":{"bb":{"ccc":null}}}"#, #"{"a":{"bb":{}}}"#),
    ]

    @Test("every example of RFC 7396 Appendix A gives the listed result", arguments: appendixA)
    func appendixAExample(original: String, patch: String, result: String) {
        let merged = json(original).applyingMergePatch(json(patch))
        #expect(merged == json(result))
        #expect(JSONWriter.string(merged) == result)
    }

    @Test("the example of RFC 7396 section 3 merges as described")
    func section3Example() {
        let target = json(#"""
            {"title":"Goodbye!","author":{"givenName":"John","familyName":"Doe"},"tags":["example","sample"],"content":"This will be unchanged"}
            """#)
        let patch = json(#"{"title":"Hello!","phoneNumber":"+01-123-456-7890","author":{"familyName":null},"tags":["example"]}"#)
        let expected = #"{"title":"Hello!","author":{"givenName":"John"},"tags":["example"],"content":"This will be unchanged","phoneNumber":"+01-123-456-7890"}"#
        #expect(JSONWriter.string(target.applyingMergePatch(patch)) == expected)
    }

    @Test("keys already in the target keep their position and new keys are appended in patch order")
    func keyPositions() {
        let target = json(#"{"a":1,"b":2,"c":3}"#)
        let patch = json(#"{"y":0,"c":30,"a":10,"x":0}"#)
        #expect(JSONWriter.string(target.applyingMergePatch(patch)) == #"{"a":10,"b":2,"c":30,"y":0,"x":0}"#)
    }

    @Test("removing keys from a large object keeps lookups working")
    func largeObjectRemoval() {
        let target = json("{" + (0..<30).map { "\"k\($0)\":\($0)" }.joined(separator: ",") + "}")
        let patch = json(#"{"k3":null,"k10":null,"k29":{"n":1},"new":true}"#)
        let merged = target.applyingMergePatch(patch)
        let o = merged.objectValue!
        #expect(o.count == 29)
        #expect(o["k3"] == nil && o["k10"] == nil)
        #expect(o["k11"] == .number(11))
        #expect(o["k29"] == json(#"{"n":1}"#))
        #expect(o.keys.last == "new")
    }

    @Test("an empty object patch changes nothing in an object but turns a non-object into {}")
    func emptyPatch() {
        let target = json(#"{"a":[1]}"#)
        #expect(target.applyingMergePatch(json("{}")) == target)
        #expect(json("[1]").applyingMergePatch(json("{}")) == json("{}"))
    }
}
