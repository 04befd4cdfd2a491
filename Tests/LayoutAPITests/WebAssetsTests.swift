import Foundation
import Testing
import LayoutAPI

@Suite("Web front ends: the playground at / and the JS client at /client.js")
struct WebAssetsTests {
    static let clients = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("clients/js")

    static func file(_ name: String) throws -> String {
        try String(contentsOf: clients.appendingPathComponent(name), encoding: .utf8)
    }

    @Test("GET / serves clients/js/playground.html as text/html, byte for byte")
    func playground() throws {
        let r = Client().send("GET", "/")
        #expect(r.status == 200)
        #expect(r.header("Content-Type") == "text/html; charset=utf-8")
        #expect(r.header("Cache-Control") == "no-cache")
        #expect(r.text == (try Self.file("playground.html")),
                "Sources/LayoutAPI/WebAssets.swift is out of date: run clients/js/generate-assets")
        #expect(r.text.hasPrefix("<!doctype html>"))
    }

    @Test("GET /client.js serves clients/js/layoutd.js as JavaScript, byte for byte")
    func client() throws {
        let r = Client().send("GET", "/client.js")
        #expect(r.status == 200)
        #expect(r.header("Content-Type") == "text/javascript; charset=utf-8")
        #expect(r.text == (try Self.file("layoutd.js")),
                "Sources/LayoutAPI/WebAssets.swift is out of date: run clients/js/generate-assets")
        #expect(r.text.contains("export class Layoutd"))
    }

    @Test("the page is self-contained: inline CSS and script, only the daemon's own client module")
    func selfContained() throws {
        let html = try Self.file("playground.html")
        #expect(!html.contains("<link"))
        #expect(!html.contains("src=\"http") && !html.contains("src='http"))
        #expect(!html.contains("@import"))
        #expect(html.contains("from \"./client.js\""))
        #expect(!html.contains("import(\"http"))
    }

    @Test("HEAD and OPTIONS work on / and /client.js; other methods answer 405")
    func methods() {
        let c = Client()
        for path in ["/", "/client.js"] {
            let head = c.send("HEAD", path)
            #expect(head.status == 200 && !head.body.isEmpty)
            #expect(c.send("OPTIONS", path).header("Allow") == "GET, HEAD, OPTIONS")
            T.expectProblem(c.send("POST", path, body: "{}"), 405, type: "method-not-allowed")
        }
        T.expectProblem(c.send("GET", "/index.html"), 404, type: "not-found")
    }
}
