import Testing
import JSON
@testable import LayoutModel

@Suite("Apple's visual format: options")
struct VisualFormatOptionsTests {
    @Test("each alignment across an H format makes next.attr == prev.attr for each adjacent pair",
          arguments: [("alignAllTop", "top"), ("alignAllBottom", "bottom"), ("alignAllCenterY", "centerY"),
                      ("alignAllFirstBaseline", "firstBaseline"), ("alignAllLastBaseline", "lastBaseline"),
                      ("alignAllBaseline", "lastBaseline")])
    func horizontalFormatAlignments(option: String, attribute: String) {
        #expect(vfl("H:[a]-[b][c]", options: [option]) == [
            "b.leading == a.trailing + 8", "b.\(attribute) == a.\(attribute)",
            "c.leading == b.trailing", "c.\(attribute) == b.\(attribute)",
        ])
    }

    @Test("each alignment across a V format makes next.attr == prev.attr for each adjacent pair",
          arguments: [("alignAllLeading", "leading"), ("alignAllTrailing", "trailing"), ("alignAllLeft", "left"),
                      ("alignAllRight", "right"), ("alignAllCenterX", "centerX")])
    func verticalFormatAlignments(option: String, attribute: String) {
        #expect(vfl("V:[a]-[b]", options: [option]) == ["b.top == a.bottom + 8", "b.\(attribute) == a.\(attribute)"])
    }

    @Test("alignments come after the view's gap and size predicates, in the order the options are given")
    func alignmentOrder() {
        #expect(vfl("[a]-[b(20)]-|", options: ["alignAllTop", "alignAllBottom"]) == [
            "b.leading == a.trailing + 8", "b.width == 20", "b.top == a.top", "b.bottom == a.bottom",
            "root.trailing == b.trailing + 20",
        ])
    }

    @Test("a single view gets no alignment constraint; repeated options count once; Swift's .name spelling works")
    func alignmentEdgeCases() {
        #expect(vfl("[a]", options: ["alignAllTop"]) == [])
        #expect(vfl("[a][b]", options: ["alignAllTop", ".alignAllTop"]) == ["b.leading == a.trailing", "b.top == a.top"])
    }

    @Test("alignment constraints take the default priority, the entry's field when given")
    func alignmentPriority() {
        let items = vflItems("[a][b]", options: [.string("alignAllTop")], context: vflContext(priorityField: 700))
        #expect(items.map(\.priority) == [700, 700])
        #expect(items[1].views == ["b", "a"])
        #expect(items[1].firstView == "b")
    }

    @Test("directionLeadingToTrailing is the default")
    func leadingToTrailing() {
        let format = "|-8-[a]-4-[b]-8-|"
        #expect(vfl(format, options: ["directionLeadingToTrailing"]) == vfl(format))
    }

    @Test("directionLeftToRight uses left and right instead of leading and trailing")
    func leftToRight() {
        #expect(vfl("|-8-[a]-4-[b]->=8-|", options: ["directionLeftToRight"]) == [
            "a.left == root.left + 8", "b.left == a.right + 4", "root.right >= b.right + 8",
        ])
    }

    @Test("directionRightToLeft runs the chain right to left, the item of larger x first")
    func rightToLeft() {
        #expect(vfl("|-8-[a]-(>=4)-[b(20)]-8-|", options: ["directionRightToLeft"]) == [
            "root.right == a.right + 8", "a.left >= b.right + 4", "b.width == 20", "b.left == root.left + 8",
        ])
        let items = vflItems("|-8-[a]-4-[b]-8-|", options: [.string("directionRightToLeft")])
        #expect(items.map(\.firstView) == ["root", "a", "b"])
    }

    @Test("direction options do not change a V format")
    func directionInVertical() {
        #expect(vfl("V:|-[a]-[b]", options: ["directionRightToLeft"]) == vfl("V:|-[a]-[b]"))
    }

    @Test("an alignment along the format's own axis is invalid_option at /options/i")
    func sameAxisAlignment() {
        let h = vflProblems("H:[a][b]", options: [.string("alignAllTop"), .string("alignAllLeading")])
        #expect(h.map(\.pointer) == ["/options/1"])
        #expect(h.map(\.code) == ["invalid_option"])
        for option in ["alignAllTop", "alignAllBottom", "alignAllCenterY", "alignAllFirstBaseline", "alignAllLastBaseline"] {
            #expect(vflProblems("V:[a][b]", options: [.string(option)]).map(\.code) == ["invalid_option"])
        }
        for option in ["alignAllLeading", "alignAllTrailing", "alignAllLeft", "alignAllRight", "alignAllCenterX"] {
            #expect(vflProblems("[a][b]", options: [.string(option)]).map(\.code) == ["invalid_option"])
        }
    }

    @Test("an unknown option is unknown_option and a non-string option invalid_option, at /options/i")
    func badOptions() {
        let p = vflProblems("[a][b]", options: [.string("alignAllTop"), .string("alignAllMiddle"), .number(4)])
        #expect(p.map(\.pointer) == ["/options/1", "/options/2"])
        #expect(p.map(\.code) == ["unknown_option", "invalid_option"])
        #expect(p[0].detail.contains("alignAllMiddle"))
    }

    @Test("two different direction options contradict: invalid_option at the second")
    func contradictoryDirections() {
        let p = vflProblems("[a][b]", options: [.string("directionLeftToRight"), .string("directionRightToLeft")])
        #expect(p.map(\.pointer) == ["/options/1"])
        #expect(p.map(\.code) == ["invalid_option"])
    }
}
