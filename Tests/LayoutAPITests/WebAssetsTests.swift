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
                "Sources/WebAssets/WebAssets.swift is out of date: run clients/js/generate-assets")
        #expect(r.text.hasPrefix("<!doctype html>"))
    }

    @Test("GET /client.js serves clients/js/layoutd.js as JavaScript, byte for byte")
    func client() throws {
        let r = Client().send("GET", "/client.js")
        #expect(r.status == 200)
        #expect(r.header("Content-Type") == "text/javascript; charset=utf-8")
        #expect(r.text == (try Self.file("layoutd.js")),
                "Sources/WebAssets/WebAssets.swift is out of date: run clients/js/generate-assets")
        #expect(r.text.contains("export class Layoutd"))
    }

    @Test("GET /client.js has a strong ETag; a matching If-None-Match answers 304 without the script, another tag 200")
    func clientRevalidates() throws {
        let c = Client()
        let first = c.send("GET", "/client.js")
        let etag = try #require(first.header("ETag"))
        #expect(etag.range(of: #"^"c-[0-9a-f]{16}"$"#, options: .regularExpression) != nil, "ETag \(etag)")
        #expect(c.send("GET", "/client.js").header("ETag") == etag, "the tag is stable between requests")
        for condition in [etag, "W/\(etag)", "\"x\", \(etag)", "*"] {
            let again = c.send("GET", "/client.js", headers: [("If-None-Match", condition)])
            #expect(again.status == 304 && again.body.isEmpty, "If-None-Match: \(condition)")
            #expect(again.header("ETag") == etag)
        }
        let changed = c.send("GET", "/client.js", headers: [("If-None-Match", "\"c-0000000000000000\"")])
        let script = try Self.file("layoutd.js")
        #expect(changed.status == 200 && changed.text == script)
        let head = c.send("HEAD", "/client.js", headers: [("If-None-Match", etag)])
        #expect(head.status == 304)
    }

    @Test("the page is self-contained: inline CSS, its script and the client module from the daemon only")
    func selfContained() throws {
        let html = try Self.file("playground.html")
        let script = try Self.file("playground.js")
        // One <link>: the favicon, an inline SVG data URL (nothing fetched from anywhere).
        #expect(html.components(separatedBy: "<link").count == 2)
        #expect(html.contains("<link rel=\"icon\" type=\"image/svg+xml\" href=\"data:image/svg+xml,"))
        #expect(!html.contains("src=\"http") && !html.contains("src='http"))
        #expect(!html.contains("@import"))
        #expect(html.contains("<script type=\"module\" src=\"./playground.js\"></script>"))
        #expect(script.contains("from \"./client.js\""))
        #expect(!script.contains("import(\"http"))
    }

    @Test("GET /playground.js serves clients/js/playground.js; the page's policy allows only the daemon's scripts")
    func policy() throws {
        let c = Client()
        let script = c.send("GET", "/playground.js")
        #expect(script.status == 200)
        #expect(script.header("Content-Type") == "text/javascript; charset=utf-8")
        #expect(script.text == (try Self.file("playground.js")),
                "Sources/WebAssets/WebAssets.swift is out of date: run clients/js/generate-assets")
        let page = c.send("GET", "/")
        let policy = try #require(page.header("Content-Security-Policy"))
        #expect(policy.hasPrefix("default-src 'none'; script-src 'self'; "))
        #expect(policy.contains("connect-src 'self'") && policy.contains("style-src 'self' 'unsafe-inline'"))
        // No inline script, no inline handler: what the policy would block.
        #expect(!page.text.contains("<script>") && !page.text.contains("<script type=\"module\">"))
        #expect(page.text.range(of: #" on[a-z]+="#, options: .regularExpression) == nil)
        c.put("s", Docs.small)
        for svg in [c.send("GET", "/v1/sessions/s/render.svg"), c.send("POST", "/v1/render.svg", body: Docs.small)] {
            #expect(svg.header("Content-Security-Policy") == "default-src 'none'; style-src 'unsafe-inline'")
        }
    }

    @Test("HEAD and OPTIONS work on / and /client.js; other methods answer 405")
    func methods() {
        let c = Client()
        for path in ["/", "/client.js", "/playground.js"] {
            let head = c.send("HEAD", path)
            #expect(head.status == 200 && !head.body.isEmpty)
            #expect(c.send("OPTIONS", path).header("Allow") == "GET, HEAD, OPTIONS")
            T.expectProblem(c.send("POST", path, body: "{}"), 405, type: "method-not-allowed")
        }
        T.expectProblem(c.send("GET", "/index.html"), 404, type: "not-found")
    }
}
