import TestSupport
import Foundation
import Testing
import JSON
import LayoutAPI
import LayoutEngine
import LayoutModel

/// The renderer by itself (escaping, the viewBox) is tested in the WebAssetsTests target.
@Suite("Pictures: GET /v1/sessions/{id}/render.svg and POST /v1/render.svg")
struct SVGRendererTests {
    static func parse(_ r: APIResponse, sourceLocation: SourceLocation = #_sourceLocation) -> SVGDocument {
        #expect(r.status == 200, "\(r.text.prefix(300))", sourceLocation: sourceLocation)
        #expect(r.header("Content-Type") == "image/svg+xml", sourceLocation: sourceLocation)
        let svg = SVGDocument(r.text)
        #expect(svg.error == nil, "not well-formed: \(svg.error ?? "")", sourceLocation: sourceLocation)
        return svg
    }

    @Test("a standalone, well-formed SVG whose boxes sit at the absolute frames, nested like the views")
    func positions() throws {
        let c = Client()
        let svg = Self.parse(c.send("POST", "/v1/render.svg", body: Docs.stack))
        let root = try #require(svg.root)
        #expect(root.name == "svg")
        #expect(root.attributes["xmlns"] == "http://www.w3.org/2000/svg")
        let viewBox = (root.attributes["viewBox"] ?? "").split(separator: " ").compactMap { Double($0) }
        #expect(viewBox.count == 4)
        #expect(Array(viewBox.prefix(2)) == [-16, -16])
        #expect(viewBox[2] == 400 + 32)
        #expect(viewBox[3] > 300 + 32)  // the legend sits below the root
        #expect(root.attributes["width"] == SVGRendererTests.n(viewBox[2]))
        let frames = T.frames(T.json(c.send("POST", "/v1/solve", query: "coordinates=absolute", body: Docs.stack))["frames"])
        let boxes = svg.boxes
        #expect(Set(boxes.keys) == Set(frames.keys))
        for (id, f) in frames { #expect(svg.frame(boxes[id]) == f, "\(id)") }
        #expect(boxes["badge"]?.groups == ["root", "header", "badge"])
        #expect(boxes["a"]?.groups == ["root", "a"])
        // Labels: one text per view, at the box's top-left corner.
        let labels = svg.elements.filter { $0.name == "text" && $0.attributes["data-id"] != nil }
        #expect(labels.map(\.text).sorted() == frames.keys.sorted())
        #expect(svg.legend.contains("Broken constraints: none"))
        #expect(svg.legend.contains("Inactive constraints (2):"))
        #expect(svg.legend.contains("a-collapse, b-wide"))
        #expect(svg.legend.contains("b-wide"))
    }

    static func n(_ v: Double) -> String { v == v.rounded() ? String(Int(v)) : String(v) }

    @Test("hidden views (and their subviews) are dashed; guides are dotted and unfilled")
    func styles() {
        let doc = """
        {"views": {"root": {"frame": {"width": 200, "height": 100}},
                   "box": {"parent": "root", "hidden": true, "frame": {"x": 10, "y": 10, "width": 80, "height": 80}},
                   "inner": {"parent": "box", "frame": {"x": 5, "y": 5, "width": 20, "height": 20}},
                   "faded": {"parent": "root", "alpha": 0, "frame": {"x": 100, "y": 10, "width": 20, "height": 20}},
                   "shown": {"parent": "root", "frame": {"x": 130, "y": 10, "width": 20, "height": 20}},
                   "gap": {"parent": "root", "kind": "guide", "frame": {"x": 160, "y": 0, "width": 40, "height": 100}}}}
        """
        let svg = Self.parse(Client().send("POST", "/v1/render.svg", body: doc))
        let boxes = svg.boxes
        for id in ["box", "inner", "faded"] {
            #expect(boxes[id]?.attributes["stroke-dasharray"] == "6 4", "\(id)")
            #expect(svg.classes(boxes[id]).contains("hidden"), "\(id)")
        }
        #expect(svg.frame(boxes["inner"]) == [15, 15, 20, 20])
        #expect(boxes["shown"]?.attributes["stroke-dasharray"] == nil)
        #expect(!svg.classes(boxes["shown"]).contains("hidden"))
        #expect(boxes["root"]?.attributes["stroke-dasharray"] == nil)
        let guide = boxes["gap"]
        #expect(svg.classes(guide).contains("guide"))
        #expect(guide?.attributes["stroke-dasharray"] == "1 3")
        #expect(guide?.attributes["stroke-linecap"] == "round")
        #expect(guide?.attributes["fill"] == "none")
    }

    @Test("the views of broken constraints are outlined in red and the constraints listed in the legend")
    func broken() {
        let svg = Self.parse(Client().send("POST", "/v1/render.svg", body: Docs.conflicting))
        let a = svg.boxes["a"]
        #expect(svg.classes(a).contains("broken"))
        #expect(a?.attributes["stroke"] == "#d50000")
        #expect(!svg.classes(svg.boxes["root"]).contains("broken"))
        #expect(svg.legend.contains("Broken constraints (1):"))
        #expect(svg.legend.contains("w2 — conflicts with w1"))
        #expect(svg.elements.contains { $0.name == "text" && $0.attributes["class"] == "broken" && $0.text.contains("w2") })
    }

    @Test("a broken constraint that a view's field makes marks that view")
    func brokenField() {
        let doc = """
        {"views": {"root": {"frame": {"width": 100, "height": 100}},
                   "a": {"parent": "root", "frame": {"x": 0, "y": 0, "width": 10, "height": 10}}},
         "constraints": {"wide": "a.width == root.width"}}
        """
        let c = Client()
        let broken = ConformanceJudge.brokenIDs(T.json(c.send("POST", "/v1/solve", body: doc))["diagnostics"])
        let svg = Self.parse(c.send("POST", "/v1/render.svg", body: doc))
        #expect(broken == ["wide"])
        #expect(svg.classes(svg.boxes["a"]).contains("broken"))
        let doc2 = """
        {"views": {"root": {"frame": {"width": 100, "height": 100}}, "a": {"parent": "root"}},
         "constraints": {"pin": "a.edges == root.edges", "w": "a.width == 50"}}
        """
        let svg2 = Self.parse(c.send("POST", "/v1/render.svg", body: doc2))
        #expect(svg2.classes(svg2.boxes["a"]).contains("broken"))
        #expect(svg2.legend.contains("✕ w"))
    }

    @Test("ambiguous views are hatched and listed in the legend")
    func ambiguous() throws {
        let doc = """
        {"views": {"root": {"frame": {"width": 100, "height": 100}}, "loose": {"parent": "root"},
                   "fixed": {"parent": "root", "frame": {"x": 1, "y": 2, "width": 3, "height": 4}}}}
        """
        let svg = Self.parse(Client().send("POST", "/v1/render.svg", body: doc))
        #expect(svg.classes(svg.boxes["loose"]).contains("ambiguous"))
        #expect(!svg.classes(svg.boxes["fixed"]).contains("ambiguous"))
        let mark = try #require(svg.elements.first { $0.attributes["class"] == "ambiguous-mark" })
        #expect(mark.attributes["data-id"] == "loose")
        #expect(mark.attributes["fill"] == "url(#layoutd-hatch)")
        #expect(svg.elements.contains { $0.name == "pattern" && $0.attributes["id"] == "layoutd-hatch" })
        #expect(svg.legend.contains("Ambiguous views (1):"))
        #expect(svg.legend.contains("loose"))
    }

    @Test("GET /v1/sessions/{id}/render.svg draws the session at its revision, with ETag and 304")
    func session() {
        let c = Client()
        c.put("s", Docs.stack)
        c.patch("/v1/sessions/s", #"{"views": {"root": {"frame": {"width": 420}}, "a": {"hidden": true}}}"#)
        let r = c.send("GET", "/v1/sessions/s/render.svg")
        let svg = Self.parse(r)
        #expect(r.header("ETag").etagRevision == 2)
        let frames = T.frames(T.json(c.send("GET", "/v1/sessions/s/frames", query: "coordinates=absolute"))["frames"])
        for (id, f) in frames { #expect(svg.frame(svg.boxes[id]) == f, "\(id)") }
        #expect(svg.boxes["a"]?.attributes["stroke-dasharray"] == "6 4")
        #expect(svg.root?.attributes["viewBox"]?.hasPrefix("-16 -16 452 ") == true)
        let again = c.send("GET", "/v1/sessions/s/render.svg", headers: [("If-None-Match", "\"2\"")])
        #expect(again.status == 304 && again.body.isEmpty)
        #expect(c.send("HEAD", "/v1/sessions/s/render.svg").status == 200)
        T.expectProblem(c.send("GET", "/v1/sessions/none/render.svg"), 404, type: "session-not-found")
        T.expectProblem(c.send("PUT", "/v1/sessions/s/render.svg", body: Docs.small), 405, type: "method-not-allowed")
    }

    @Test("POST /v1/render.svg answers errors as problem+json, like /v1/solve")
    func errors() {
        let c = Client()
        T.expectProblem(c.send("POST", "/v1/render.svg", body: "{"), 400, type: "invalid-json")
        T.expectProblem(c.send("POST", "/v1/render.svg", body: #"{"views": {"a": {"parent": "zz"}}}"#), 422,
                        type: "invalid-document")
        T.expectProblem(c.send("POST", "/v1/render.svg", query: "strict=true", body: Docs.conflicting), 409,
                        type: "required-conflict")
        T.expectProblem(c.send("GET", "/v1/render.svg"), 405, type: "method-not-allowed")
    }
}
