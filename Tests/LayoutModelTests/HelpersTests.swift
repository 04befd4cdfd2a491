import JSON
import Testing
@testable import LayoutModel

@Suite("Helpers (align, distribute)")
struct HelpersTests {
    func items(_ entry: String, dialect: String = "standard") throws -> [LinearConstraint] {
        let doc = try #require(DocTest.document("""
        {"dialect": "\(dialect)", "views": {\(DocTest.smallTree)}, "constraints": {"h": \(entry)}}
        """))
        return doc.constraints[0].items
    }

    func eq(_ a: Anchor, _ b: Anchor, _ constant: Double = 0, priority: Double = 1000) -> LinearConstraint {
        LinearConstraint(terms: [LinearTerm(a, 1), LinearTerm(b, -1)], constant: constant, relation: .equal,
                         priority: priority, views: [a.view, b.view], firstView: a.view)
    }

    @Test("align makes every view's attribute equal the first's")
    func alignTop() throws {
        #expect(try items(#"{"align": "top", "views": ["a", "b", "c"]}"#) == [
            eq(Anchor("b", .top), Anchor("a", .top)), eq(Anchor("c", .top), Anchor("a", .top)),
        ])
    }

    @Test("align takes composite names and aliases, expanded view by view")
    func alignComposite() throws {
        #expect(try items(#"{"align": "size", "views": ["a", "b", "c"]}"#) == [
            eq(Anchor("b", .width), Anchor("a", .width)), eq(Anchor("b", .height), Anchor("a", .height)),
            eq(Anchor("c", .width), Anchor("a", .width)), eq(Anchor("c", .height), Anchor("a", .height)),
        ])
        #expect(try items(#"{"align": "centerYAnchor", "views": ["a", "b"]}"#) == [eq(Anchor("b", .centerY), Anchor("a", .centerY))])
        #expect(try items(#"{"align": "baseline", "views": ["a", "b"]}"#) == [eq(Anchor("b", .lastBaseline), Anchor("a", .lastBaseline))])
    }

    @Test("distribute horizontal chains prev.trailing == next.leading - spacing")
    func distributeHorizontal() throws {
        #expect(try items(#"{"distribute": "horizontal", "spacing": 10, "views": ["a", "b", "c"]}"#) == [
            eq(Anchor("a", .trailing), Anchor("b", .leading), 10), eq(Anchor("b", .trailing), Anchor("c", .leading), 10),
        ])
    }

    @Test("distribute leftToRight uses right/left, vertical bottom/top; spacing defaults to 0")
    func distributeOthers() throws {
        #expect(try items(#"{"distribute": "leftToRight", "views": ["a", "b"]}"#) == [eq(Anchor("a", .right), Anchor("b", .left))])
        #expect(try items(#"{"distribute": "vertical", "spacing": -4.5, "views": ["c", "a"]}"#)
                == [eq(Anchor("c", .bottom), Anchor("a", .top), -4.5)])
    }

    @Test("equalWidth and equalHeight make each size equal to the first's")
    func equalSizes() throws {
        #expect(try items(#"{"distribute": "equalWidth", "views": ["a", "b", "c"]}"#) == [
            eq(Anchor("b", .width), Anchor("a", .width)), eq(Anchor("c", .width), Anchor("a", .width)),
        ])
        #expect(try items(#"{"distribute": "equalHeight", "views": ["c", "b"]}"#) == [eq(Anchor("b", .height), Anchor("c", .height))])
    }

    @Test("the first item of each generated constraint is its first anchor's view, nil for a guide")
    func firstItems() throws {
        let got = try items(#"{"distribute": "vertical", "views": ["a", "g", "b"]}"#)
        #expect(got.map(\.firstView) == ["a", nil])
        #expect(got.map(\.views) == [["a", "g"], ["g", "b"]])
    }

    @Test("the entry's priority applies to every generated item")
    func priority() throws {
        let got = try items(#"{"distribute": "horizontal", "views": ["a", "b", "c"], "priority": "defaultHigh"}"#)
        #expect(got.map(\.priority) == [750, 750])
    }

    @Test("fewer than two views make no constraints")
    func fewViews() throws {
        #expect(try items(#"{"align": "top", "views": ["a"]}"#).isEmpty)
        #expect(try items(#"{"distribute": "vertical", "views": []}"#).isEmpty)
    }

    @Test("a view listed twice names itself once")
    func repeatedView() throws {
        let got = try items(#"{"align": "top", "views": ["a", "a"]}"#)
        #expect(got.map(\.views) == [["a"]])
    }

    @Test("helper problems: unknown views, attributes, distributions, spacing, missing views")
    func problems() {
        func found(_ entry: String) -> [String] {
            DocTest.pointersAndCodes(#"{"views": {\#(DocTest.smallTree)}, "constraints": {"h": \#(entry)}}"#)
        }
        #expect(found(#"{"align": "top", "views": ["a", "zz", 3]}"#) == ["/constraints/h/views/1 unknown_view", "/constraints/h/views/2 invalid_type"])
        #expect(found(#"{"align": "diagonal", "views": ["a", "b"]}"#) == ["/constraints/h/align unknown_attribute"])
        #expect(found(#"{"align": 1, "views": ["a", "b"]}"#) == ["/constraints/h/align invalid_type"])
        #expect(found(#"{"distribute": "around", "views": ["a", "b"]}"#) == ["/constraints/h/distribute invalid_value"])
        #expect(found(#"{"distribute": "horizontal", "spacing": "8", "views": ["a"]}"#) == ["/constraints/h/spacing invalid_type"])
        #expect(found(#"{"distribute": "horizontal", "spacing": 1e400, "views": ["a"]}"#) == ["/constraints/h/spacing number_out_of_range"])
        #expect(found(#"{"distribute": "equalWidth", "spacing": 3, "views": ["a"]}"#) == ["/constraints/h/spacing unknown_field"])
        #expect(found(#"{"distribute": "vertical"}"#) == ["/constraints/h/views missing_field"])
        #expect(found(#"{"align": "top", "views": "a"}"#) == ["/constraints/h/views invalid_type"])
    }

    @Test("Auto Layout's rules apply to helpers: margins of a guide, views without a common root")
    func rules() {
        #expect(DocTest.pointersAndCodes("""
        {"views": {\(DocTest.smallTree)}, "constraints": {"h": {"align": "topMargin", "views": ["a", "g"]}}}
        """) == ["/constraints/h not_for_guide"])
        #expect(DocTest.pointersAndCodes("""
        {"views": {\(DocTest.smallTree), "other": {}}, "constraints": {"h": {"align": "top", "views": ["a", "other"]}}}
        """) == ["/constraints/h no_common_root"])
    }
}
