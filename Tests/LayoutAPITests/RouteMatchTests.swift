@testable import LayoutAPI
import Testing

@Suite("Route.match: session paths (byte-matched when ASCII) and the rest")
struct RouteMatchTests {
    @Test("paths and their routes")
    func routes() {
        let cases: [(String, Route?)] = [
            ("/v1/sessions/abc", .session("abc")),
            ("/v1/sessions/load-13", .session("load-13")),
            ("/v1/sessions/a/frames", .sessionFrames("a")),
            ("/v1/sessions/a/events", .sessionEvents("a")),
            ("/v1/sessions/a/render.svg", .sessionRender("a")),
            ("/v1/sessions/a/explain", .sessionExplain("a")),
            ("/v1/sessions/a%2Fb/explain", .sessionExplain("a/b")),
            ("/v1/sessions/a b#c", .session("a b#c")),
            ("/v1/sessions/\r\n", .session("\r\n")),
            ("/v1/sessions/a/frames/", nil),
            ("/v1/sessions/a/", nil),
            ("/v1/sessions/a/b/c", nil),
            ("/v1/sessions/a/Frames", nil),
            ("/v1/sessions//frames", nil),
            ("/v1/sessions/", nil),
            ("/v1/sessions", .sessions),
            ("/v1/sessionsx", nil),
            ("/v1/session/a", nil),
            ("/healthz", .healthz),
            ("/", .playground),
            ("/v1/sessions/é", .session("é")),
            ("/v1/sessions/é/frames", .sessionFrames("é")),
            ("/v1/sessions/\u{301}x", nil),  // the combining mark joins the "/": not the prefix
            ("/v1/sessions/a/frames\u{301}", nil),
        ]
        for (path, expected) in cases {
            #expect(Route.match(path) == expected, "\(path)")
        }
    }
}
