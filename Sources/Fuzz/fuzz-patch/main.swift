// fuzz-patch: a merge-patch sequence on a session against a fresh solve of the patched document, through the
// public LayoutAPI request handling only (PUT, PATCH, GET, POST /v1/solve).
//
// The input is parts separated by `\n%\n` lines: the first is the seed document (PUT /v1/sessions/fuzz), each
// next one a merge patch body (PATCH; a part that starts with `!` is sent with ?strict=true, without the `!`).
// After each PATCH:
// - never a 5xx;
// - 200: GET of the session and GET .../frames (relative and absolute) equal a fresh POST /v1/solve of the
//   session's canonical document (GET's `document`): frames within 1e-6, the same broken ids, ambiguous set
//   and inactive list (docs/http.md, "Whatever the path, the session ends up exactly where a fresh POST
//   /v1/solve of the patched document would"). The one documented exception, a `delegate` constraint with no
//   entry in `delegate` keeping its last state in a session, is given its session state in the fresh document;
// - any 4xx: a problem+json answer, and the session answers GET (document, frames, ETag) with the same bytes as
//   before the request (docs/http.md, "Atomicity").
import FuzzSupport
import JSON
import LayoutAPI
import TestSupport

runFuzzer { bytes in
    let parts = inputParts(bytes, limit: 24)
    let api = LayoutAPI()
    let path = "/v1/sessions/fuzz"
    let created = api.handle(APIRequest(method: "PUT", path: path, body: parts[0]))
    fuzzCheck(created.status < 500, "PUT answered \(created.status): \(created.text)")
    guard created.status == 201 else { return }
    var before = Snapshot(api, path)
    for (n, part) in parts.dropFirst().enumerated() {
        let strict = part.first == UInt8(ascii: "!")
        let response = api.handle(APIRequest(
            method: "PATCH", path: path, query: strict ? "strict=true" : "",
            headers: [("Content-Type", "application/merge-patch+json")], body: strict ? Array(part.dropFirst()) : part))
        let step = "patch \(n + 1) \(String(decoding: part, as: UTF8.self))"
        fuzzCheck(response.status < 500, "\(step): answered \(response.status): \(response.text)")
        let after = Snapshot(api, path)
        if response.status == 200 {
            expectSameAsFresh(api, path, after, step: step)
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

func expectSameAsFresh(_ api: LayoutAPI, _ path: String, _ snapshot: Snapshot, step: String) {
    guard let session = try? JSONParser.parse(snapshot.body), let document = session["document"] else {
        fuzzFailure("\(step): GET's body has no document")
    }
    let fresh = withDelegateStates(document, inactive: ConformanceJudge.strings(session["diagnostics"]?["inactive"]))
    for (i, coordinates) in ["relative", "absolute"].enumerated() {
        let solve = api.handle(APIRequest(method: "POST", path: "/v1/solve", query: "coordinates=\(coordinates)",
                                          body: JSONWriter.serialize(fresh)))
        fuzzCheck(solve.status == 200, "\(step): the session's document does not solve afresh: \(solve.text)")
        guard let mine = try? JSONParser.parse(snapshot.frames[i]), let theirs = try? JSONParser.parse(solve.body) else {
            fuzzFailure("\(step): an answer is not JSON")
        }
        // Views listed as ambiguous (and, in absolute coordinates, their descendants) may stand elsewhere in a
        // solution of the same cost: an incremental solve can stop at another one than a fresh solve (found by
        // this fuzzer: see docs/robustness.md, "Fuzzing"), so only the determined views are compared.
        let ambiguous = Set(ConformanceJudge.strings(theirs["diagnostics"]?["ambiguous"]))
        let undetermined = coordinates == "relative" ? ambiguous : withDescendants(ambiguous, in: document)
        let diffs = FrameMaps.differences(FrameMaps.frames(mine["frames"]).filter { !undetermined.contains($0.key) },
                                          FrameMaps.frames(theirs["frames"]).filter { !undetermined.contains($0.key) })
        fuzzCheck(diffs.isEmpty, "\(step) (\(coordinates)): frames differ from a fresh solve: \(diffs)\n"
                    + "document \(JSONWriter.string(fresh))")
        let dm = mine["diagnostics"], df = theirs["diagnostics"]
        fuzzCheck(ConformanceJudge.brokenIDs(dm) == ConformanceJudge.brokenIDs(df),
                  "\(step): broken \(ConformanceJudge.brokenIDs(dm)) vs fresh \(ConformanceJudge.brokenIDs(df))")
        fuzzCheck(Set(ConformanceJudge.strings(dm?["ambiguous"])) == Set(ConformanceJudge.strings(df?["ambiguous"])),
                  "\(step): ambiguous \(ConformanceJudge.strings(dm?["ambiguous"])) vs fresh "
                    + "\(ConformanceJudge.strings(df?["ambiguous"]))\ndocument \(JSONWriter.string(fresh))")
        fuzzCheck(ConformanceJudge.strings(dm?["inactive"]) == ConformanceJudge.strings(df?["inactive"]),
                  "\(step): inactive \(ConformanceJudge.strings(dm?["inactive"])) vs fresh "
                    + "\(ConformanceJudge.strings(df?["inactive"]))")
    }
}

/// The document with a `delegate` entry for every `"activation": "delegate"` constraint that has none, set to the
/// state the session keeps for it (active unless listed as inactive): the documented exception.
func withDelegateStates(_ document: JSONValue, inactive: [String]) -> JSONValue {
    guard case .object(var top) = document, let constraints = top["constraints"]?.objectValue else { return document }
    var delegate = top["delegate"]?.objectValue ?? JSONObject()
    var added = false
    for (id, entry) in constraints.entries where entry["activation"]?.stringValue == "delegate" && delegate[id] == nil {
        delegate[id] = .bool(!inactive.contains(id))
        added = true
    }
    if added { top["delegate"] = .object(delegate) }
    return .object(top)
}

/// `ids` and every view below one of them (the canonical document's `views` is keyed by id, with `parent`).
func withDescendants(_ ids: Set<String>, in document: JSONValue) -> Set<String> {
    guard !ids.isEmpty, let views = document["views"]?.objectValue else { return ids }
    var out = ids
    for (id, _) in views.entries {
        var current: String? = id
        var steps = 0
        while let c = current, steps <= views.count {
            if ids.contains(c) { out.insert(id); break }
            current = views[c]?["parent"]?.stringValue
            steps += 1
        }
    }
    return out
}
