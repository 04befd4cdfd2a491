import FuzzSupport
import JSON
import LayoutEngine
import LayoutModel
import TestSupport

/// Compares the session's answers in `snapshot` with a fresh solve of its canonical document.
///
/// The fresh side is what `POST /v1/solve` runs for that document (`DocumentParser.parse` with the API's limits,
/// then `LayoutSystem(document:)`), called directly: one solve gives both coordinates, where two requests solved
/// the document twice and wrote and read back each answer (two thirds of an input's time went there). The
/// session's side is still read from its HTTP answers.
func expectSameAsFresh(_ snapshot: Snapshot, limits: DocumentLimits, step: String) {
    guard let session = try? JSONParser.parse(snapshot.body), let document = session["document"] else {
        fuzzFailure("\(step): GET's body has no document")
    }
    let fresh = withDelegateStates(document, inactive: ConformanceJudge.strings(session["diagnostics"]?["inactive"]))
    let system: LayoutSystem
    switch DocumentParser.parse(fresh, limits: limits) {
    case .success(let parsed): system = LayoutSystem(document: parsed)
    case .failure(let error):
        fuzzFailure("\(step): the session's document does not solve afresh: \(error.problems)\n"
                    + "document \(JSONWriter.string(fresh))")
    }
    let diagnostics = system.diagnostics
    let freshBroken = diagnostics.broken.map(\.id)
    for (i, coordinates) in [Coordinates.relative, .absolute].enumerated() {
        guard let mine = try? JSONParser.parse(snapshot.frames[i]) else { fuzzFailure("\(step): an answer is not JSON") }
        // Views listed as ambiguous (and, in absolute coordinates, their descendants) may stand elsewhere in a
        // solution of the same cost: an incremental solve can stop at another one than a fresh solve (found by
        // this fuzzer: see docs/robustness.md, "Fuzzing"), so only the determined views are compared.
        let ambiguous = Set(diagnostics.ambiguous)
        let undetermined = coordinates == .relative ? ambiguous : withDescendants(ambiguous, in: document)
        let theirs = Dictionary(system.frames(coordinates).map { ($0.id, [$0.frame.x, $0.frame.y,
                                                                          $0.frame.width, $0.frame.height]) },
                                uniquingKeysWith: { first, _ in first })
        let diffs = FrameMaps.differences(FrameMaps.frames(mine["frames"]).filter { !undetermined.contains($0.key) },
                                          theirs.filter { !undetermined.contains($0.key) })
        fuzzCheck(diffs.isEmpty, "\(step) (\(coordinates)): frames differ from a fresh solve: \(diffs)\n"
                    + "document \(JSONWriter.string(fresh))")
        let dm = mine["diagnostics"]
        fuzzCheck(ConformanceJudge.brokenIDs(dm) == freshBroken,
                  "\(step): broken \(ConformanceJudge.brokenIDs(dm)) vs fresh \(freshBroken)")
        fuzzCheck(Set(ConformanceJudge.strings(dm?["ambiguous"])) == ambiguous,
                  "\(step): ambiguous \(ConformanceJudge.strings(dm?["ambiguous"])) vs fresh "
                    + "\(diagnostics.ambiguous)\ndocument \(JSONWriter.string(fresh))")
        fuzzCheck(ConformanceJudge.strings(dm?["inactive"]) == diagnostics.inactive,
                  "\(step): inactive \(ConformanceJudge.strings(dm?["inactive"])) vs fresh \(diagnostics.inactive)")
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
