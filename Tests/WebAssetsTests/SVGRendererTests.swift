import TestSupport
import Testing
import LayoutEngine
import LayoutModel
import WebAssets

/// SVGRenderer as a pure function of a document, its frames and diagnostics; what the routes draw
/// (nesting, hidden views, broken and ambiguous views, ETags) is in LayoutAPITests' SVGRendererTests.
@Suite("SVGRenderer: a standalone picture of any document and frames")
struct SVGRendererTests {
    @Test("ids are XML-escaped; characters XML cannot carry are replaced")
    func escaping() throws {
        let id = "a<b&\"c'>d"
        let document = Document(views: [
            View(id: "r#1", frame: FrameSpec(x: 0, y: 0, width: 50, height: 50)),
            View(id: id, parent: "r#1"),
            View(id: "ctl\u{1}x", parent: "r#1"),
        ], constraints: [])
        let frames: [(id: String, frame: Frame)] = [
            ("r#1", Frame(x: 0, y: 0, width: 50, height: 50)),
            (id, Frame(x: 1, y: 2, width: 3, height: 4)),
            ("ctl\u{1}x", Frame(x: 0, y: 0, width: 1, height: 1)),
        ]
        var d = Diagnostics()
        d.ambiguous = [id]
        d.inactive = ["<&>", "\"q\""]
        let text = SVGRenderer.render(document: document, frames: frames, diagnostics: d)
        let svg = SVGDocument(text)
        #expect(svg.error == nil, "\(svg.error ?? "")")
        #expect(svg.frame(svg.boxes[id]) == [1, 2, 3, 4])
        #expect(svg.boxes["ctl\u{FFFD}x"] != nil)
        #expect(svg.legend.contains("<&>, \"q\""))
        #expect(svg.elements.contains { $0.name == "text" && $0.text == id })
        #expect(SVGRenderer.escape("<a & 'b'>") == "&lt;a &amp; &apos;b&apos;&gt;")
    }

    @Test("the viewBox spans the roots; an empty or negative frame still gives valid SVG")
    func bounds() {
        let document = Document(views: [
            View(id: "one", frame: FrameSpec(x: 10, y: 20, width: 100, height: 50)),
            View(id: "two", frame: FrameSpec(x: 200, y: 0, width: 50, height: 30)),
            View(id: "neg", parent: "one"),
        ], constraints: [])
        let frames: [(id: String, frame: Frame)] = [
            ("one", Frame(x: 10, y: 20, width: 100, height: 50)),
            ("two", Frame(x: 200, y: 0, width: 50, height: 30)),
            ("neg", Frame(x: 50, y: 50, width: -20, height: 0)),
        ]
        let svg = SVGDocument(SVGRenderer.render(document: document, frames: frames, diagnostics: Diagnostics()))
        #expect(svg.error == nil)
        let viewBox = (svg.root?.attributes["viewBox"] ?? "").split(separator: " ").compactMap { Double($0) }
        let origin: [Double] = [-6, -16]
        #expect(Array(viewBox.prefix(2)) == origin)
        #expect(viewBox.count == 4 && viewBox[2] >= 240 + 32)  // wider when the legend needs it
        #expect(svg.frame(svg.boxes["neg"]) == [30, 50, 20, 0])
        let empty = SVGDocument(SVGRenderer.render(document: Document(views: [], constraints: []), frames: [],
                                                   diagnostics: Diagnostics()))
        #expect(empty.error == nil)
        #expect(empty.root?.name == "svg")
    }
}
