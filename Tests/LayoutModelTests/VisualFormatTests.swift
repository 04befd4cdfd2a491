import Testing
import JSON
@testable import LayoutModel

@Suite("Apple's visual format: connections and predicates")
struct VisualFormatTests {
    @Test("views written without a connection are flush: [a][b] makes b.leading == a.trailing")
    func flush() {
        #expect(vfl("H:[a][b]") == ["b.leading == a.trailing"])
        #expect(vfl("|[a]|") == ["a.leading == root.leading", "root.trailing == a.trailing"])
    }

    @Test("a bare - is 8 between siblings and 20 to the superview edge")
    func standardSpacing() {
        #expect(vfl("H:[a]-[b]") == ["b.leading == a.trailing + 8"])
        #expect(vfl("H:|-[a]-|") == ["a.leading == root.leading + 20", "root.trailing == a.trailing + 20"])
    }

    @Test("-n- is an exact gap, first item the later view or the superview at the closing edge")
    func numberGap() {
        #expect(vfl("H:|-8-[a]-12-[b]-8-|") == [
            "a.leading == root.leading + 8", "b.leading == a.trailing + 12", "root.trailing == b.trailing + 8",
        ])
        #expect(vfl("[a]-0.5-[b]") == ["b.leading == a.trailing + 0.5"])
    }

    @Test("-metric- takes the gap from metrics")
    func metricGap() {
        let m = vflMetrics([("pad", .number(16)), ("gap", .number(4))])
        #expect(vfl("H:|-pad-[c]-gap-[a]-pad-|", metrics: m) == [
            "c.leading == root.leading + 16", "a.leading == c.trailing + 4", "root.trailing == a.trailing + 16",
        ])
    }

    @Test("a connection predicate list makes one gap constraint per predicate, with its relation and priority")
    func connectionPredicateList() {
        #expect(vfl("[a]-(>=8,<=20@500)-[b]") == ["b.leading >= a.trailing + 8", "b.leading <= a.trailing + 20 @500"])
        #expect(vfl("|-(==pad@high)-[a]", metrics: vflMetrics([("pad", .number(10))])) == ["a.leading == root.leading + 10 @750"])
        #expect(vfl("[a]->=8-|") == ["root.trailing >= a.trailing + 8"])
        #expect(vfl("[a]-<=pad@300-[b]", metrics: vflMetrics([("pad", .number(6))])) == ["b.leading <= a.trailing + 6 @300"])
    }

    @Test("negative numbers are read inside parentheses")
    func negativeInParentheses() {
        #expect(vfl("[a]-(-4)-[b(>=-5)]") == ["b.leading == a.trailing - 4", "b.width >= -5"])
    }

    @Test("a priority after a bare connection number is accepted: -20@750-")
    func simplePredicatePriority() {
        #expect(vfl("[a]-20@750-[b]") == ["b.leading == a.trailing + 20 @750"])
    }

    @Test("size predicates constrain width in H and height in V, with relations and priorities")
    func sizePredicates() {
        #expect(vfl("[a(>=50@750)]") == ["a.width >= 50 @750"])
        #expect(vfl("[a(44)]") == ["a.width == 44"])
        #expect(vfl("V:[a(>=70,<=100@750)]") == ["a.height >= 70", "a.height <= 100 @750"])
        #expect(vfl("[a(==w@p)]", metrics: vflMetrics([("w", .number(30)), ("p", .number(300))])) == ["a.width == 30 @300"])
    }

    @Test("a view name in a size predicate makes the dimensions equal: [b(==a)]")
    func viewToView() {
        #expect(vfl("H:[b(==a)]") == ["b.width == a.width"])
        #expect(vfl("V:[b(<=a@250)]") == ["b.height <= a.height @250"])
    }

    @Test("a metric shadows a view of the same name in a predicate")
    func metricBeforeView() {
        #expect(vfl("[b(a)]", metrics: vflMetrics([("a", .number(12))])) == ["b.width == 12"])
    }

    @Test("priority names of the spec work after @")
    func priorityNames() {
        #expect(vfl("[a(>=1@low,<=9@fittingSizeLevel,==5@required)]") == ["a.width >= 1 @250", "a.width <= 9 @50", "a.width == 5"])
    }

    @Test("V: formats use top and bottom")
    func vertical() {
        #expect(vfl("V:|-[a(44)]-[c(>=100)]-20-|") == [
            "a.top == root.top + 20", "a.height == 44", "c.top == a.bottom + 8", "c.height >= 100",
            "root.bottom == c.bottom + 20",
        ])
    }

    @Test("without orientation a format is horizontal")
    func defaultOrientation() {
        #expect(vfl("|-[a]") == vfl("H:|-[a]"))
    }

    @Test("spaces between tokens are ignored")
    func whitespace() {
        #expect(vfl(" H : | - 8 - [ a ( >= 50 @ 750 ) ] - [b] - | ") == [
            "a.leading == root.leading + 8", "a.width >= 50 @750", "b.leading == a.trailing + 8",
            "root.trailing == b.trailing + 20",
        ])
    }

    @Test("view ids with dashes and hashes are named in brackets and predicates")
    func idCharacters() {
        #expect(vfl("[top-bar(==a)]-[a]") == ["top-bar.width == a.width", "a.leading == top-bar.trailing + 8"])
    }

    @Test("items name their views in order, with the superview of |, and their first item's view")
    func viewsAndFirstView() {
        let items = vflItems("|-8-[a]-8-[b(==a)]-8-|")
        #expect(items.map(\.views) == [["a", "root"], ["b", "a"], ["b", "a"], ["root", "b"]])
        #expect(items.map(\.firstView) == ["a", "b", "b", "root"])
        #expect(vflItems("[a(50)]").map(\.views) == [["a"]])
    }

    @Test("terms and constants follow LinearConstraint's convention: first - second - c REL 0")
    func rawTerms() {
        let item = vflItems("[a]->=8-[b]")[0]
        #expect(item.terms == [LinearTerm(Anchor("b", .leading), 1), LinearTerm(Anchor("a", .trailing), -1)])
        #expect(item.constant == -8)
        #expect(item.relation == .greaterOrEqual)
        #expect(vflItems("[a(50)]")[0].terms == [LinearTerm(Anchor("a", .width), 1)])
        #expect(vflItems("[a(50)]")[0].constant == -50)
    }

    @Test("items without @ take the entry's priority field, else required")
    func defaultPriority() {
        let items = vflItems("|-[a(50)]-[b]", context: vflContext(priorityField: 600))
        #expect(items.map(\.priority) == [600, 600, 600])
        #expect(vflItems("|-[a]").map(\.priority) == [1000])
    }

    @Test("a view may appear twice, and views of different parents may be chained without |")
    func unusualChains() {
        #expect(vfl("[a]-[a]") == ["a.leading == a.trailing + 8"])
        #expect(vfl("[a]-[label]") == ["label.leading == a.trailing + 8"])
        #expect(vfl("|[g]|") == ["g.leading == root.leading", "root.trailing == g.trailing"])
    }
}

@Suite("Apple's visual format: conformance formats")
struct VisualFormatConformanceTests {
    @Test("16-vfl-basic: h1, h2, v1, v2 give the oracle's constraints in order")
    func vflBasic() {
        #expect(vfl("H:|-[a]-[b(==a)]-|") == [
            "a.leading == root.leading + 20", "b.leading == a.trailing + 8", "b.width == a.width",
            "root.trailing == b.trailing + 20",
        ])
        #expect(vfl("H:|-pad-[c]-pad-|", metrics: vflMetrics([("pad", .number(16))])) == [
            "c.leading == root.leading + 16", "root.trailing == c.trailing + 16",
        ])
        #expect(vfl("V:|-[a(44)]-[c(>=100)]-20-|") == [
            "a.top == root.top + 20", "a.height == 44", "c.top == a.bottom + 8", "c.height >= 100",
            "root.bottom == c.bottom + 20",
        ])
        #expect(vfl("V:|-[b(==a)]") == ["b.top == root.top + 20", "b.height == a.height"])
    }

    @Test("20-fitting-size-root: the panel's column and rows")
    func fittingSizeRoot() {
        #expect(vfl("V:|-10-[p1(30)]-8-[p2(40)]-10-|") == [
            "p1.top == panel.top + 10", "p1.height == 30", "p2.top == p1.bottom + 8", "p2.height == 40",
            "panel.bottom == p2.bottom + 10",
        ])
        #expect(vfl("H:|-10-[p1]-10-|") == ["p1.leading == panel.leading + 10", "panel.trailing == p1.trailing + 10"])
    }

    @Test("01-spec-example c4: | is the label's parent red")
    func specExample() {
        #expect(vfl("H:|-8-[label]->=8-|") == ["label.leading == red.leading + 8", "red.trailing >= label.trailing + 8"])
        let items = vflItems("H:|-8-[label]->=8-|")
        #expect(items.map(\.views) == [["label", "red"], ["red", "label"]])
        #expect(items.map(\.firstView) == ["label", "red"])
    }
}
