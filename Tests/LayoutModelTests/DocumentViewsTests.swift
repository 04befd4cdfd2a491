import JSON
import Testing
@testable import LayoutModel

@Suite("Document views")
struct DocumentViewsTests {
    @Test("a view with no fields gets every default of spec section 2")
    func defaults() throws {
        let doc = try #require(DocTest.document(#"{"views": {"root": {}}}"#))
        #expect(doc.direction == .leftToRight)
        #expect(doc.dialect == .standard)
        #expect(doc.constraints.isEmpty)
        let v = try #require(doc.views.first)
        #expect(v == View(id: "root"))
        #expect(v.parent == nil && v.kind == .view && v.frame == FrameSpec())
        #expect(!v.hidden && v.alpha == 1)
        #expect(v.intrinsicWidth == nil && v.intrinsicHeight == nil)
        #expect(v.hugging == AxisPriorities(horizontal: 250, vertical: 250))
        #expect(v.compressionResistance == AxisPriorities(horizontal: 750, vertical: 750))
        #expect(v.margins == Insets(top: 8, left: 8, bottom: 8, right: 8))
        #expect(v.firstBaseline == nil && v.lastBaseline == 0)
    }

    @Test("every view field is read, partial objects keep the other defaults")
    func allFields() throws {
        let doc = try #require(DocTest.document("""
        {"direction": "rtl", "dialect": "mortar", "views": {
          "root": {"frame": {"width": 320, "height": 480}},
          "label": {"parent": "root", "kind": "view", "frame": {"x": 5, "y": 6}, "hidden": true,
                    "alpha": 0.5, "intrinsicSize": {"height": 21},
                    "hugging": {"horizontal": "defaultHigh"}, "compressionResistance": {"vertical": 999},
                    "margins": {"left": 16, "right": 4}, "baseline": {"first": 16}}
        }, "flags": {"editing": true, "dark": false}, "delegate": {"c1": true}}
        """))
        #expect(doc.direction == .rightToLeft)
        #expect(doc.dialect == .mortar)
        #expect(doc.flags == ["editing": true, "dark": false])
        #expect(doc.delegate == ["c1": true])
        #expect(doc.views.map(\.id) == ["root", "label"])
        #expect(doc.views[0].frame == FrameSpec(width: 320, height: 480))
        let l = doc.views[1]
        #expect(l.parent == "root")
        #expect(l.frame == FrameSpec(x: 5, y: 6))
        #expect(l.hidden && l.alpha == 0.5)
        #expect(l.intrinsicWidth == nil && l.intrinsicHeight == 21)
        #expect(l.hugging == AxisPriorities(horizontal: 750, vertical: 250))
        #expect(l.compressionResistance == AxisPriorities(horizontal: 750, vertical: 999))
        #expect(l.margins == Insets(top: 8, left: 16, bottom: 8, right: 4))
        #expect(l.firstBaseline == 16 && l.lastBaseline == 0)
    }

    @Test("views keep document order, which is processing order")
    func order() throws {
        let doc = try #require(DocTest.document(#"{"views": {"z": {}, "a": {"parent": "z"}, "m": {"parent": "a"}}}"#))
        #expect(doc.views.map(\.id) == ["z", "a", "m"])
    }

    @Test("views may be an array of objects with id")
    func arrayForm() throws {
        let doc = try #require(DocTest.document("""
        {"views": [{"id": "root", "frame": {"width": 10}}, {"id": "a", "parent": "root", "kind": "guide"}]}
        """))
        #expect(doc.views.map(\.id) == ["root", "a"])
        #expect(doc.views[0].frame.width == 10)
        #expect(doc.views[1].kind == .guide && doc.views[1].parent == "root")
    }

    @Test("a guide accepts frame, hugging and compression resistance")
    func guideFields() throws {
        let doc = try #require(DocTest.document("""
        {"views": {"root": {}, "g": {"parent": "root", "kind": "guide", "frame": {"width": 10},
                                     "hugging": {"horizontal": 1}}}}
        """))
        #expect(doc.views[1].frame.width == 10)
    }

    @Test("ids of 128 characters of letters, digits, _, - and # are accepted")
    func idAlphabet() throws {
        let long = String(repeating: "a", count: 128)
        let doc = try #require(DocTest.document(#"{"views": {"A_b-9#": {}, "\#(long)": {"parent": "A_b-9#"}}}"#))
        #expect(doc.views.map(\.id) == ["A_b-9#", long])
    }

    @Test("view ids outside the alphabet, empty, too long or with a dot are invalid_id")
    func invalidIDs() {
        let long = String(repeating: "x", count: 129)
        #expect(DocTest.pointersAndCodes(#"{"views": {"a.b": {}, "": {}, "\#(long)": {}, "é": {}, "ok": {}}}"#) == [
            "/views/a.b invalid_id", "/views/ invalid_id", "/views/\(long) invalid_id", "/views/é invalid_id",
        ])
        let p = DocTest.problems(#"{"views": {"a.b": {}}}"#)
        #expect(p.first?.detail.contains("'.'") == true)
    }

    @Test("pointers escape ~ and / in keys (RFC 6901)")
    func escaping() {
        #expect(DocTest.pointersAndCodes(#"{"views": {"a/b~c": {}}}"#) == ["/views/a~1b~0c invalid_id"])
    }

    @Test("array-form views: missing id, wrong type of id, duplicate ids")
    func arrayProblems() {
        #expect(DocTest.pointersAndCodes("""
        {"views": [{"id": "root"}, {"parent": "root"}, {"id": 3}, {"id": "root"}, 7]}
        """) == [
            "/views/1/id missing_field", "/views/2/id invalid_type", "/views/3/id duplicate_id", "/views/4 invalid_type",
        ])
    }

    @Test("a keyed view may repeat its key in id, but not another id")
    func keyedID() {
        #expect(DocTest.problems(#"{"views": {"root": {"id": "root"}}}"#).isEmpty)
        #expect(DocTest.pointersAndCodes(#"{"views": {"root": {"id": "other"}}}"#) == ["/views/root/id invalid_value"])
    }
}
