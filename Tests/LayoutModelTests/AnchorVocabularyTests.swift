import Testing
@testable import LayoutModel

@Suite("Anchor vocabulary and composites")
struct AnchorVocabularyTests {
    @Test("every canonical attribute name resolves to itself", arguments: Attribute.allCases)
    func canonicalAttribute(_ a: Attribute) {
        #expect(AnchorVocabulary.resolve(a.rawValue) == .single(a))
        #expect(AnchorVocabulary.resolve(a.rawValue + "Anchor") == .single(a))
        #expect(AnchorVocabulary.resolve("m_" + a.rawValue) == .single(a))
    }

    @Test("every canonical composite name resolves to itself", arguments: Composite.allCases)
    func canonicalComposite(_ c: Composite) {
        #expect(AnchorVocabulary.resolve(c.rawValue) == .composite(c))
        #expect(AnchorVocabulary.resolve(c.rawValue + "Anchor") == .composite(c))
        #expect(AnchorVocabulary.resolve("m_" + c.rawValue) == .composite(c))
    }

    @Test("the DSLs' alias spellings resolve", arguments: [
        ("leadingAnchor", AnchorKind.single(.leading)), ("trailingAnchor", .single(.trailing)),
        ("edgeAnchor", .composite(.edges)), ("edgesAnchor", .composite(.edges)),
        ("sizeAnchor", .composite(.size)), ("centerAnchor", .composite(.center)),
        ("m_top", .single(.top)), ("m_cornerTL", .composite(.cornerTL)), ("m_edges", .composite(.edges)),
        ("m_size", .composite(.size)), ("m_sides", .composite(.sides)), ("m_caps", .composite(.caps)),
        ("baseline", .single(.lastBaseline)), ("m_baseline", .single(.lastBaseline)),
        ("baselineAnchor", .single(.lastBaseline)), ("firstBaselineAnchor", .single(.firstBaseline)),
        ("centerXWithinMargin", .single(.centerXWithinMargins)),
        ("centerYWithinMargin", .single(.centerYWithinMargins)),
        ("m_centerXWithinMargin", .single(.centerXWithinMargins)),
        ("centerWithinMargin", .composite(.centerWithinMargins)),
        ("edgesWithinMargin", .composite(.edgesWithinMargins)),
        ("m_topMarginAnchor", .single(.topMargin)),
    ])
    func alias(_ name: String, _ kind: AnchorKind) {
        #expect(AnchorVocabulary.resolve(name) == kind)
    }

    @Test("unknown names, wrong case and bare affixes do not resolve",
          arguments: ["", "Top", "LEFT", "middle", "Anchor", "m_", "m_Anchor", "topanchor", "M_top", "top "])
    func unknown(_ name: String) {
        #expect(AnchorVocabulary.resolve(name) == nil)
    }

    @Test("composites list their components in the spec's order")
    func components() {
        let expected: [Composite: [Attribute]] = [
            .size: [.width, .height], .center: [.centerX, .centerY],
            .edges: [.top, .leading, .bottom, .trailing], .horizontal: [.leading, .trailing],
            .vertical: [.top, .bottom], .sides: [.left, .right], .caps: [.top, .bottom],
            .cornerTL: [.top, .left], .cornerTR: [.top, .right], .cornerBL: [.bottom, .left],
            .cornerBR: [.bottom, .right], .frame: [.left, .top, .width, .height],
            .edgesWithinMargins: [.topMargin, .leadingMargin, .bottomMargin, .trailingMargin],
            .centerWithinMargins: [.centerXWithinMargins, .centerYWithinMargins],
        ]
        for c in Composite.allCases { #expect(c.components == expected[c], "\(c)") }
        #expect(Composite.allCases.filter(\.isInset)
                == [.edges, .horizontal, .vertical, .sides, .caps, .edgesWithinMargins])
    }

    @Test("every composite with every constant form gives the spec's per-component constants", arguments: [
        (Composite.size, ConstantForm.scalar(40), [40.0, 40]),
        (.size, .list([100, 50]), [100, 50]),
        (.size, .keyed([("width", 80), ("height", 50)]), [80, 50]),
        (.size, .keyed([("height", 5)]), [0, 5]),
        (.center, .list([3, 4]), [3, 4]), (.center, .keyed([("x", 3), ("y", 4)]), [3, 4]),
        (.center, .scalar(0), [0, 0]),
        (.centerWithinMargins, .keyed([("y", 4)]), [0, 4]),
        (.edges, .scalar(10), [10, 10, -10, -10]),
        (.edges, .list([10, 20, 30, 40]), [10, 20, -30, -40]),
        (.edges, .keyed([("top", 100), ("left", 10), ("bottom", 150), ("right", 50)]), [100, 10, -150, -50]),
        (.edges, .keyed([("right", 4)]), [0, 0, 0, -4]),
        (.edgesWithinMargins, .list([1, 2, 3, 4]), [1, 2, -3, -4]),
        (.horizontal, .scalar(5), [5, -5]), (.horizontal, .list([5, 15]), [5, -15]),
        (.horizontal, .list([1, 5, 3, 15]), [5, -15]),
        (.horizontal, .keyed([("top", 0), ("left", 5), ("bottom", 0), ("right", 15)]), [5, -15]),
        (.sides, .scalar(30), [30, -30]), (.sides, .list([1, 2, 3, 4]), [2, -4]),
        (.vertical, .list([100, 250]), [100, -250]), (.vertical, .list([100, 0, 250, 0]), [100, -250]),
        (.vertical, .keyed([("bottom", 7)]), [0, -7]),
        (.caps, .keyed([("top", 200), ("left", 0), ("bottom", 150), ("right", 0)]), [200, -150]),
        (.caps, .scalar(1), [1, -1]),
        (.cornerTL, .list([10, 20]), [10, 20]), (.cornerTR, .keyed([("right", 2)]), [0, 2]),
        (.cornerBL, .scalar(3), [3, 3]), (.cornerBR, .list([-10, -20]), [-10, -20]),
        (.frame, .list([1, 2, 3, 4]), [1, 2, 3, 4]),
        (.frame, .keyed([("x", 1), ("y", 2), ("width", 3), ("height", 4)]), [1, 2, 3, 4]),
    ])
    func constantForms(_ c: Composite, _ form: ConstantForm, _ expected: [Double]) {
        #expect(c.constants(form) == expected)
    }

    @Test("unsigned constants skip the inset signs (Mortar's '+')")
    func unsigned() {
        #expect(Composite.edges.constants(.list([1, 2, 3, 4]), signed: false) == [1, 2, 3, 4])
        #expect(Composite.sides.constants(.scalar(3), signed: false) == [3, 3])
    }

    @Test("constant forms that do not fit are rejected", arguments: [
        (Composite.size, ConstantForm.list([1, 2, 3])), (.size, .keyed([("w", 1)])),
        (.center, .list([1])), (.edges, .list([1, 2])), (.edges, .keyed([("leading", 1)])),
        (.horizontal, .list([1, 2, 3])), (.cornerTL, .list([1, 2, 3, 4])), (.frame, .list([1, 2])),
        (.center, .keyed([("width", 1)])),
    ])
    func badForms(_ c: Composite, _ form: ConstantForm) {
        #expect(c.constants(form) == nil)
    }

    @Test("composites pair when their components match axis and kind")
    func pairing() {
        #expect(Composite.edges.pairs(with: .edgesWithinMargins))
        #expect(Composite.center.pairs(with: .centerWithinMargins))
        #expect(Composite.cornerTR.pairs(with: .cornerBL))
        #expect(Composite.vertical.pairs(with: .caps))
        #expect(Composite.frame.pairs(with: .frame))
        #expect(!Composite.size.pairs(with: .center))
        #expect(!Composite.edges.pairs(with: .frame))
        #expect(!Composite.center.pairs(with: .cornerTL))
        #expect(!Composite.vertical.pairs(with: .horizontal))
    }

    @Test("anchor strings resolve against the document's views")
    func references() throws {
        let views = ExprFixture.views
        #expect(try AnchorVocabulary.reference("a.edgeAnchor", views: views).get()
                == AnchorReference(view: "a", kind: .composite(.edges)))
        #expect(try AnchorVocabulary.reference("my-view.m_top", views: views).get().anchors == [Anchor("my-view", .top)])
        #expect(AnchorVocabulary.reference("a", views: views) == .failure(.malformed))
        #expect(AnchorVocabulary.reference("a.", views: views) == .failure(.malformed))
        #expect(AnchorVocabulary.reference(".top", views: views) == .failure(.malformed))
        #expect(AnchorVocabulary.reference("a.top.x", views: views) == .failure(.malformed))
        #expect(AnchorVocabulary.reference("zz.top", views: views) == .failure(.unknownView("zz")))
        #expect(AnchorVocabulary.reference("a.middle", views: views) == .failure(.unknownAttribute("middle")))
    }
}
