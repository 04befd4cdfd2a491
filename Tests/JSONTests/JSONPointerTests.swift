import JSON
import Testing

@Suite("JSON Pointer (RFC 6901)")
struct JSONPointerTests {
    static let document = json(#"""
        {"foo":["bar","baz"],"":0,"a/b":1,"c%d":2,"e^f":3,"g|h":4,"i\\j":5,"k\"l":6," ":7,"m~n":8}
        """#)

    @Test("the examples of RFC 6901 section 5 resolve to the listed values", arguments: [
        ("/foo", #"["bar","baz"]"#), ("/foo/0", #""bar""#), ("/", "0"), ("/a~1b", "1"), ("/c%d", "2"),
        ("/e^f", "3"), ("/g|h", "4"), (#"/i\j"#, "5"), (#"/k"l"#, "6"), ("/ ", "7"), ("/m~0n", "8"),
    ])
    func section5(pointer: String, expected: String) {
        #expect(Self.document.value(atPointer: pointer) == json(expected))
    }

    @Test("the empty pointer is the whole document")
    func wholeDocument() {
        #expect(Self.document.value(atPointer: "") == Self.document)
    }

    @Test("pointers into nested layout documents find views and constraints")
    func nestedLookup() {
        let doc = json(#"{"views":{"root":{"frame":{"width":390}}},"constraints":[{"first":"a.left"},{"first":"b.top"}]}"#)
        #expect(doc.value(atPointer: "/views/root/frame/width") == .number(390))
        #expect(doc.value(atPointer: "/constraints/1/first") == .string("b.top"))
    }

    @Test("pointers that refer to nothing, or are malformed, give nil", arguments: [
        "foo", "/missing", "/foo/2", "/foo/-", "/foo/01", "/foo/+1", "/foo/ 1", "/foo/bar", "/foo/0/x",
        "/a~2b", "/m~", "/~", "/foo/99999999999999999999999",
    ])
    func nothing(pointer: String) {
        #expect(Self.document.value(atPointer: pointer) == nil)
    }

    @Test("~01 unescapes to ~1, not to /")
    func escapeOrder() {
        let doc = json(#"{"~1":"tilde-one","/":"slash"}"#)
        #expect(doc.value(atPointer: "/~01") == .string("tilde-one"))
        #expect(doc.value(atPointer: "/~1") == .string("slash"))
    }

    @Test("pointers into scalars give nil")
    func intoScalar() {
        #expect(json("1").value(atPointer: "/0") == nil)
        #expect(json("1").value(atPointer: "") == .number(1))
    }
}
