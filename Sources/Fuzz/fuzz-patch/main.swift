// fuzz-patch: a merge-patch sequence on a session against a fresh solve of the patched document. The session is
// driven through the public LayoutAPI request handling only (PUT, PATCH, GET).
//
// The input is parts separated by `\n%\n` lines: the first is the seed document (PUT /v1/sessions/fuzz), each
// next one a merge patch body (PATCH; a part that starts with `!` is sent with ?strict=true, without the `!`).
// At most `maxPatches` patches are sent; parts after them are ignored. After each PATCH:
// - never a 5xx;
// - 200: GET of the session and GET .../frames (relative and absolute) equal a fresh solve of the session's
//   canonical document (GET's `document`; FreshSolve.swift): frames within 1e-6, the same broken ids, ambiguous
//   set and inactive list (docs/http.md, "Whatever the path, the session ends up exactly where a fresh POST
//   /v1/solve of the patched document would"). The one documented exception, a `delegate` constraint with no
//   entry in `delegate` keeping its last state in a session, is given its session state in the fresh document;
// - any 4xx: a problem+json answer, and the session answers GET (document, frames, ETag) with the same bytes as
//   before the request (docs/http.md, "Atomicity").
import FuzzSupport
import JSON
import LayoutAPI

/// Patches per input. Each accepted one costs a PATCH, three GETs and a fresh solve of the whole document; eight
/// make histories long enough for the incremental path (edits, rebuilds, activation flips, undoing an edit) and
/// keep an input cheap. scripts/fuzz bounds the input's size with -max_len (the document is most of it).
let maxPatches = 8

runFuzzer { bytes in
    let parts = inputParts(bytes, limit: 2 + maxPatches).prefix(1 + maxPatches)
    let api = LayoutAPI()
    let path = "/v1/sessions/fuzz"
    let created = api.handle(APIRequest(method: "PUT", path: path, body: parts[0]))
    fuzzCheck(created.status < 500, "PUT answered \(created.status): \(created.text)")
    guard created.status == 201 else { return }
    var before = Snapshot(api, path)
    // The last snapshot found equal to a fresh solve: the verdict depends on the snapshot only (the fresh side is
    // the solve of its document, which is deterministic), so a PATCH that leaves all of it the same is not solved
    // again. The state PUT made is not compared (it is a fresh solve).
    var verified: Snapshot? = nil
    for (n, part) in parts.dropFirst().enumerated() {
        let strict = part.first == UInt8(ascii: "!")
        let response = api.handle(APIRequest(
            method: "PATCH", path: path, query: strict ? "strict=true" : "",
            headers: [("Content-Type", "application/merge-patch+json")], body: strict ? Array(part.dropFirst()) : part))
        let step = "patch \(n + 1) \(String(decoding: part, as: UTF8.self))"
        fuzzCheck(response.status < 500, "\(step): answered \(response.status): \(response.text)")
        let after = Snapshot(api, path)
        if response.status == 200 {
            if after != verified {
                expectSameAsFresh(after, limits: api.configuration.documentLimits, step: step)
                verified = after
            }
        } else {
            fuzzCheck(response.header("Content-Type") == "application/problem+json",
                      "\(step): \(response.status) is not problem+json")
            fuzzCheck(after == before, "\(step): refused with \(response.status) but the session changed:\n"
                        + "before \(before)\nafter \(after)")
        }
        before = after
    }
}

/// What GET answers for the session: its body and ETag, and the frames route's body (both coordinates).
struct Snapshot: Equatable, CustomStringConvertible {
    var body: [UInt8]
    var etag: String?
    /// Relative, then absolute.
    var frames: [[UInt8]]

    init(_ api: LayoutAPI, _ path: String) {
        let get = api.handle(APIRequest(method: "GET", path: path))
        fuzzCheck(get.status == 200, "GET of the session answered \(get.status): \(get.text)")
        body = get.body
        etag = get.header("ETag")
        frames = ["relative", "absolute"].map {
            api.handle(APIRequest(method: "GET", path: path + "/frames", query: "coordinates=\($0)")).body
        }
    }

    var description: String { "ETag \(etag ?? "none") \(String(decoding: body, as: UTF8.self))" }
}
