import Testing
import JSON
@testable import LayoutModel

@Suite("Visually form: operators")
struct VisuallyTests {
    @Test("H(|-8-label->=8-|) pins leading at 8 and keeps the trailing gap at least 8")
    func specExample() {
        #expect(visually("H(|-8-label->=8-|)") == ["label.leading == red.leading + 8", "red.trailing >= label.trailing + 8"])
        #expect(visually("H(|-8-label->=8-|)") == vfl("H:|-8-[label]->=8-|"))
    }

    @Test("a bare - is 0 between siblings and to either edge")
    func bareHyphen() {
        #expect(visually("H(|-a-b-|)") == ["a.leading == root.leading", "b.leading == a.trailing", "root.trailing == b.trailing"])
    }

    @Test("-n-, ->=n-, -<=n-, ->=-, -<=- between siblings")
    func siblingGaps() {
        #expect(visually("H(a-8-b)") == ["b.leading == a.trailing + 8"])
        #expect(visually("H(a->=8-b)") == ["b.leading >= a.trailing + 8"])
        #expect(visually("H(a-<=8-b)") == ["b.leading <= a.trailing + 8"])
        #expect(visually("H(a->=-b)") == ["b.leading >= a.trailing"])
        #expect(visually("H(a-<=-b)") == ["b.leading <= a.trailing"])
        #expect(visually("H(a->=(100)-b)") == ["b.leading >= a.trailing + 100"])
    }

    @Test("edge gaps: the superview is first at the closing edge, so ->=8-| keeps the gap at least 8")
    func edgeGaps() {
        #expect(visually("H(|->=8-a-<=4-|)") == ["a.leading >= root.leading + 8", "root.trailing <= a.trailing + 4"])
        #expect(visually("H(|->=-a->=-|)") == ["a.leading >= root.leading", "root.trailing >= a.trailing"])
        #expect(visually("H(|-<=-a-<=-|)") == ["a.leading <= root.leading", "root.trailing <= a.trailing"])
        #expect(visually("V(|->=8-a)") == ["a.top >= root.top + 8"])
    }

    @Test("sizes v[n], v[>=n], v[<=n] constrain width in H and height in V")
    func sizes() {
        #expect(visually("H(a[44])") == ["a.width == 44"])
        #expect(visually("V(a[>=44])") == ["a.height >= 44"])
        #expect(visually("H(a[<=44.5])") == ["a.width <= 44.5"])
    }

    @Test("v[n%] is a share of the view's superview's width in H, height in V")
    func percent() {
        #expect(visually("H(a[50%])") == ["a.width == 0.5*root.width"])
        #expect(visually("V(label[25%])") == ["label.height == 0.25*red.height"])
        #expect(visually("H(a[0%])") == ["a.width == 0"])
        let item = try? VisuallyCompiler.compile(format: "H(a[50%])", context: vflContext()).get().first
        #expect(item?.views == ["a", "root"])
        #expect(item?.firstView == "a")
    }

    @Test("priorities: -(20 ~ 750)-, v[>=50% ~ 750], v[44 ~ defaultHigh] and Swift's spellings")
    func priorities() {
        #expect(visually("H(a-(20 ~ 750)-b)") == ["b.leading == a.trailing + 20 @750"])
        #expect(visually("H(a-20~750-b)") == ["b.leading == a.trailing + 20 @750"])
        #expect(visually("H(a[>=50% ~ 750])") == ["a.width >= 0.5*root.width @750"])
        #expect(visually("V(a[44 ~ defaultHigh])") == ["a.height == 44 @750"])
        #expect(visually("H(a[44 ~ .defaultLow])") == ["a.width == 44 @250"])
        #expect(visually("H(a[44~UILayoutPriority.fittingSizeLevel])") == ["a.width == 44 @50"])
        #expect(visually("H(|-(8~999)-a->=(4~1)-|)") == ["a.leading == root.leading + 8 @999", "root.trailing >= a.trailing + 4 @1"])
    }

    @Test("a parenthesized parameter may carry a sign and a relation")
    func parenthesizedParameter() {
        #expect(visually("H(a-(-4)-b)") == ["b.leading == a.trailing - 4"])
        #expect(visually("H(a-(>=8 ~ 500)-b)") == ["b.leading >= a.trailing + 8 @500"])
        #expect(visually("H(a[(44 ~ 700)])") == ["a.width == 44 @700"])
    }

    @Test("README examples of Visually")
    func readmeExamples() {
        #expect(visually("V(a-(10~800)-b[44])") == ["b.top == a.bottom + 10 @800", "b.height == 44"])
        #expect(visually("V(b[>=44]->=-|)") == ["b.height >= 44", "root.bottom >= b.bottom"])
        #expect(visually("H(a->=10-b)") == ["b.leading >= a.trailing + 10"])
        #expect(visually("V(|-20-a-8-b[44]-20-|)") == [
            "a.top == root.top + 20", "b.top == a.bottom + 8", "b.height == 44", "root.bottom == b.bottom + 20",
        ])
    }

    @Test("items come in written order: opening gap, then per view its gap and size, then the closing gap")
    func order() {
        #expect(visually("H(|-8-a[50]-20-b[50~500]-|)") == [
            "a.leading == root.leading + 8", "a.width == 50", "b.leading == a.trailing + 20", "b.width == 50 @500",
            "root.trailing == b.trailing",
        ])
    }

    @Test("views and firstView follow the constraint's items; the closing edge puts the superview first")
    func viewsAndFirstView() {
        let items = (try? VisuallyCompiler.compile(format: "H(|-a-b-|)", context: vflContext()).get()) ?? []
        #expect(items.map(\.views) == [["a", "root"], ["b", "a"], ["root", "b"]])
        #expect(items.map(\.firstView) == ["a", "b", "root"])
    }

    @Test("| is the adjacent view's own parent")
    func adjacentSuperview() {
        #expect(visually("H(|-label-a-|)") == ["label.leading == red.leading", "a.leading == label.trailing", "root.trailing == a.trailing"])
    }

    @Test("backquoted names hold any view id; spaces are ignored; the default priority is the entry's field")
    func namesSpacesPriority() {
        #expect(visually("H(|-`top-bar`-|)") == ["top-bar.leading == root.leading", "root.trailing == top-bar.trailing"])
        #expect(visually(" H ( | - 8 - a [ >= 4 ] - | ) ") == ["a.leading == root.leading + 8", "a.width >= 4", "root.trailing == a.trailing"])
        let items = (try? VisuallyCompiler.compile(format: "H(|-8-a[4]-|)", context: vflContext(priorityField: 600)).get()) ?? []
        #expect(items.map(\.priority) == [600, 600, 600])
    }

    @Test("isVisuallyForm tells H(…)/V(…) from Apple's format")
    func detection() {
        #expect(VisuallyCompiler.isVisuallyForm("H(a)"))
        #expect(VisuallyCompiler.isVisuallyForm(" V (a)"))
        #expect(!VisuallyCompiler.isVisuallyForm("H:|[a]"))
        #expect(!VisuallyCompiler.isVisuallyForm("[a]"))
    }

    @Test("compileEntry dispatches; the Visually form rejects metrics and options")
    func compileEntry() {
        let ctx = vflContext()
        let vfl = try? VisualFormatCompiler.compileEntry(format: "|-[a]", metrics: nil, options: nil, context: ctx).get()
        #expect(vfl?.map(vflDescribe) == ["a.leading == root.leading + 20"])
        let vis = try? VisualFormatCompiler.compileEntry(format: "H(|-a)", metrics: nil, options: nil, context: ctx).get()
        #expect(vis?.map(vflDescribe) == ["a.leading == root.leading"])
        if case .failure(let p) = VisualFormatCompiler.compileEntry(format: "H(|-a)", metrics: JSONObject(),
                                                                    options: [], context: ctx) {
            #expect(p.map(\.pointer) == ["/metrics", "/options"])
            #expect(p.map(\.code) == ["invalid_metric", "invalid_option"])
        } else {
            Issue.record("expected problems")
        }
    }
}
