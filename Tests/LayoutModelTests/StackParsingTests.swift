import JSON
import Testing
@testable import LayoutModel

@Suite("Stack views in the document")
struct StackParsingTests {
    @Test("a stack with only its arranged views takes UIKit's defaults, and its arranged views take it as parent")
    func defaultsAndImpliedParents() throws {
        let doc = try #require(DocTest.document("""
        {"views": {"root": {}, "s": {"parent": "root", "stack": {"arranged": ["a", "b"]}},
                   "a": {}, "b": {"parent": "s"}}}
        """))
        let s = try #require(doc.views.first { $0.id == "s" })
        #expect(s.stack == StackSpec(axis: .horizontal, arranged: ["a", "b"], spacing: 0, distribution: .fill,
                                     alignment: .fill, layoutMarginsRelative: false, baselineRelative: false))
        #expect(doc.views.first { $0.id == "a" }?.parent == "s")
        #expect(doc.views.first { $0.id == "b" }?.parent == "s")
        #expect(doc.views.first { $0.id == "root" }?.parent == nil)
    }

    @Test("every member is read: axis, spacing, distribution, alignment and the two switches")
    func everyMember() throws {
        let doc = try #require(DocTest.document("""
        {"views": {"s": {"stack": {"axis": "vertical", "arranged": ["a"], "spacing": 4.5,
          "distribution": "equalCentering", "alignment": "trailing", "layoutMarginsRelative": true,
          "baselineRelative": true}}, "a": {}}}
        """))
        #expect(doc.views[0].stack == StackSpec(axis: .vertical, arranged: ["a"], spacing: 4.5,
                                                distribution: .equalCentering, alignment: .trailing,
                                                layoutMarginsRelative: true, baselineRelative: true))
    }

    @Test("an arranged id that names no view is unknown_view at its place in arranged")
    func unknownArranged() {
        #expect(DocTest.pointersAndCodes("""
        {"views": {"s": {"stack": {"arranged": ["a", "zz"]}}, "a": {}}}
        """) == ["/views/s/stack/arranged/1 unknown_view"])
    }

    @Test("an arranged view with another parent is invalid_arrangement naming both parents, at its place in arranged")
    func anotherParent() throws {
        let problems = DocTest.problems("""
        {"views": {"root": {}, "other": {"parent": "root"}, "s": {"parent": "root", "stack": {"arranged": ["a"]}},
                   "a": {"parent": "other"}}}
        """)
        #expect(problems.map { "\($0.pointer) \($0.code)" } == ["/views/s/stack/arranged/0 invalid_arrangement"])
        let detail = try #require(problems.first?.detail)
        #expect(detail.contains("'other'") && detail.contains("'s'"))
    }

    @Test("unknown words for axis, distribution and alignment are invalid_value at the member")
    func badWords() {
        #expect(DocTest.pointersAndCodes("""
        {"views": {"s": {"stack": {"axis": "diagonal", "distribution": "fillEvenly", "alignment": "middle",
                                   "arranged": []}}}}
        """) == ["/views/s/stack/axis invalid_value", "/views/s/stack/distribution invalid_value",
                 "/views/s/stack/alignment invalid_value"])
    }

    @Test("wrong types and unknown members of a stack are reported at their pointers")
    func typesAndFields() {
        #expect(DocTest.pointersAndCodes("""
        {"views": {"s": {"stack": {"arranged": "a", "spacing": "8", "layoutMarginsRelative": 1, "gap": 3}}, "a": {}}}
        """) == ["/views/s/stack/arranged invalid_type", "/views/s/stack/spacing invalid_type",
                 "/views/s/stack/layoutMarginsRelative invalid_type", "/views/s/stack/gap unknown_field"])
        #expect(DocTest.pointersAndCodes(#"{"views": {"s": {"stack": []}}}"#) == ["/views/s/stack invalid_type"])
    }

    @Test("a baseline alignment in a vertical stack is invalid_value (UIKit: horizontal stacks only)")
    func verticalBaseline() {
        #expect(DocTest.pointersAndCodes("""
        {"views": {"s": {"stack": {"axis": "vertical", "alignment": "firstBaseline", "arranged": ["a"]}}, "a": {}}}
        """) == ["/views/s/stack/alignment invalid_value"])
    }

    @Test("a stack arranging itself, a view twice, or a view another stack arranges is invalid_arrangement")
    func arrangedOnce() {
        #expect(DocTest.pointersAndCodes("""
        {"views": {"s": {"stack": {"arranged": ["a", "s", "a"]}}, "t": {"stack": {"arranged": ["a"]}}, "a": {}}}
        """) == ["/views/s/stack/arranged/1 invalid_arrangement", "/views/s/stack/arranged/2 invalid_arrangement",
                 "/views/t/stack/arranged/0 invalid_arrangement"])
    }

    @Test("arranging the stack's own ancestor is parent_cycle; guides neither stack nor are arranged")
    func cyclesAndGuides() {
        #expect(DocTest.pointersAndCodes("""
        {"views": {"top": {}, "s": {"parent": "top", "stack": {"arranged": ["top"]}}}}
        """) == ["/views/s/stack/arranged/0 parent_cycle"])
        #expect(DocTest.pointersAndCodes("""
        {"views": {"root": {}, "g": {"parent": "root", "kind": "guide", "stack": {"arranged": []}},
                   "s": {"parent": "root", "stack": {"arranged": ["h"]}}, "h": {"kind": "guide"}}}
        """) == ["/views/g/stack not_for_guide", "/views/s/stack/arranged/0 not_for_guide"])
    }

    @Test("constraints may name arranged views whose parent is implied: they share the stack's root")
    func constraintsSeeImpliedParents() {
        #expect(DocTest.pointersAndCodes("""
        {"views": {"root": {"frame": {"width": 100, "height": 100}}, "s": {"parent": "root", "stack": {"arranged": ["a"]}},
                   "a": {}, "b": {"parent": "root"}},
         "constraints": {"c": "b.top == a.bottom"}}
        """) == [])
    }
}
