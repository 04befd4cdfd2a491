import ArgumentParser
import Foundation
import JSON
import LayoutAPI
import LayoutEngine
import LayoutModel

/// Times layoutd's engine on a bundle written by `shared/bench/workloads.py bundle` and prints one
/// JSON line per case with the field names kiwi's harness prints, so both columns come from the
/// same systems (equal checksums).
@main
struct LayoutBench: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "layout-bench",
        abstract: "Time build, root-width edits and constant changes on a workload bundle.",
        discussion: """
        Cases (one JSON line each):
          build            compile + solve the parsed document (JSON parsing excluded), p50 of R runs
          edit             suggest each root width of "widths" (an edit suggestion, dual simplex)
          constant-change  each (constraint id, new constant) of "constantChanges", in place
          pipeline         parse + validate + compile + solve + encode the document's JSON text
          session-patch    the constant changes and root widths as merge patches to an in-process
                           session (LayoutAPI.handle: everything a PATCH costs but the socket)
          session-wake     the constant changes alternately to two sessions with one resident
                           place: every PATCH wakes a dormant session (a fresh solve) first
          json-parse       request-body parsers on the document and on a small patch: ours,
                           Foundation's JSONSerialization, Foundation's JSONDecoder
          stack-hide       hide and show arranged views of a vertical stack as long as the
                           document (at most 2,000), against a fresh solve (StackBench.swift)
          text-resize      resize the root of a page of wrapped labels (at most 1,000), against
                           a fresh solve (TextBench.swift)
          explain          explain every view's top and leading, against a fresh solve
                           (ExplainBench.swift)
        checksum = Σ over views of x + y (relative to the parent) + width + height.
        `layout-bench store` times the SQLite session store instead (see its --help).
        """,
        subcommands: [StoreBench.self])

    @Option(help: "Bundle file from workloads.py bundle (required unless a subcommand runs).") var bundle: String?
    @Option(help: "Edits and constant changes to run at most.") var maxOps: Int = 2000
    @Option(help: "Build repetitions (default: 20 up to 200 views, 5 up to 2000, else 3).") var buildReps: Int?
    @Option(help: "Stop a timed loop after this many seconds.") var maxSeconds: Double = 3
    @Option(help: "Root-width edits to run (default: --max-ops); set to kiwi's count to compare checksums.")
    var edits: Int?
    @Option(help: "Constant changes to run (default: --max-ops).") var changes: Int?
    @Option(help: "session-patch: sessions of the document, each patch sent to the next in a scrambled order (100: their state no longer fits the CPU caches, as under load).")
    var sessions: Int = 1
    @Option(help: "session-patch: send the patches this many times (each round to other sessions when --sessions > 1).")
    var rounds: Int = 1
    @Option(name: .customLong("evict-kib"), help: "session-patch: before each PATCH (untimed) write this many KiB of another buffer, as a load client and the kernel sharing the cores evict the daemon's caches between two requests (0: off).")
    var evictKiB: Int = 0
    @Flag(help: "session-patch: after the eviction, send the same PATCH (untimed) to another session first: the code and the state all sessions share are warm again, the timed session's own state is as cold as the eviction left it.")
    var warmOther = false
    @Option(help: "Only time DocumentParser.parse (the parse case, ParseBench.swift) this many times.")
    var parseOnly: Int?
    @Option(help: "Only run the profile case (ProfileBench.swift: the cold pipeline's phases and the tableau's rows by kind) this many times.")
    var profileOnly: Int?
    @Flag(help: "Only run the explain case (ExplainBench.swift).") var explainOnly = false

    func run() throws {
        guard let bundle else { throw ValidationError("Missing expected argument '--bundle <bundle>'") }
        let data = try Data(contentsOf: URL(fileURLWithPath: bundle))
        let json = try JSONParser.parse([UInt8](data))
        guard let documentJSON = json["document"] else { throw ValidationError("bundle has no document") }
        let workload = json["meta"]?["workload"]?.stringValue ?? "?"
        let document: Document
        switch DocumentParser.parse(documentJSON) {
        case .success(let d): document = d
        case .failure(let e): throw ValidationError("invalid document: \(e.problems.prefix(5))")
        }
        let views = document.views.count
        if let parseOnly { return try parseCase(documentJSON, workload: workload, views: views, reps: parseOnly) }
        if let profileOnly { return try profileCase(documentJSON, workload: workload, views: views, reps: profileOnly) }
        let reps = buildReps ?? (views <= 200 ? 20 : views <= 2000 ? 5 : 3)
        if explainOnly { return try explainCase(document, workload: workload, views: views, reps: reps) }

        var builds: [Double] = []
        var system: LayoutSystem? = nil
        for _ in 0..<reps {
            system = nil
            let t0 = DispatchTime.now().uptimeNanoseconds
            let s = LayoutSystem(document: document)
            builds.append(Double(DispatchTime.now().uptimeNanoseconds - t0) / 1e6)
            system = s
        }
        var sys = system!
        let st = sys.solverStatistics
        emit(f(["case": "build", "workload": workload, "views": views, "reps": reps,
              "build_ms_min": builds.min()!, "build_ms_p50": percentile(builds, 50), "build_ms_max": builds.max()!,
              "pivots": st.pivots, "rows": st.rows, "cells": st.cells, "dummyCells": st.dummyCells, "levels": st.levels,
              "broken": sys.diagnostics.broken.count, "checksum": checksum(sys)]))

        let rootPosition = document.views.firstIndex { $0.isRoot && $0.frame.width != nil }!
        let root = document.views[rootPosition].id
        var editTimes: [Double] = []
        let editPivots0 = sys.pivots
        let start = DispatchTime.now().uptimeNanoseconds
        for w in (json["widths"]?.arrayValue ?? []).prefix(edits ?? maxOps).compactMap(\.numberValue) {
            let t0 = DispatchTime.now().uptimeNanoseconds
            // A root resize is edit suggestions: nothing is compiled, added or removed.
            let s = sys.apply(.sizes(view: rootPosition, width: w, height: nil))
            guard s.added == 0 || s.rebuilt else { throw ValidationError("no edit path") }
            editTimes.append(Double(DispatchTime.now().uptimeNanoseconds - t0) / 1e3)
            if edits == nil && Double(DispatchTime.now().uptimeNanoseconds - start) > maxSeconds * 1e9 { break }
        }
        let editPivots = Double(sys.pivots - editPivots0) / Double(max(1, editTimes.count))
        emit(f(["case": "edit", "workload": workload, "views": views, "pivots_mean": editPivots]) + stats(editTimes, "us")
             + f(["checksum": checksum(sys)]))

        var changeTimes: [Double] = []
        let changePivots0 = sys.pivots
        var rebuilt = 0
        let start2 = DispatchTime.now().uptimeNanoseconds
        var entryByID: [String: ConstraintEntry] = [:]
        for e in document.constraints { entryByID[e.id] = e }
        for change in (json["constantChanges"]?.arrayValue ?? []).prefix(changes ?? maxOps) {
            guard let pair = change.arrayValue, let id = pair.first?.stringValue, let c = pair.last?.numberValue,
                  var entry = entryByID[id], entry.items.count == 1 else { continue }
            // Object form: first REL m·second + c  →  item constant -c.
            entry.items[0].constant = -c
            let t0 = DispatchTime.now().uptimeNanoseconds
            let s = sys.apply(.members(views: [], entries: [entry]))
            guard s.added == 0 || s.rebuilt else { throw ValidationError("no constant path") }
            changeTimes.append(Double(DispatchTime.now().uptimeNanoseconds - t0) / 1e3)
            if s.rebuilt { rebuilt += 1 }
            entryByID[id] = entry
            if changes == nil && Double(DispatchTime.now().uptimeNanoseconds - start2) > maxSeconds * 1e9 { break }
        }
        emit(f(["case": "constant-change", "workload": workload, "views": views, "attempted": changeTimes.count,
                "pivots_mean": Double(sys.pivots - changePivots0) / Double(max(1, changeTimes.count)),
              "rebuilt": rebuilt]) + stats(changeTimes, "us") + f(["checksum": checksum(sys)]))

        let text = JSONWriter.serialize(documentJSON)
        var pipeline: [Double] = []
        var bytes = 0
        for _ in 0..<reps {
            let t0 = DispatchTime.now().uptimeNanoseconds
            let parsed = try JSONParser.parse(text)
            guard case .success(let d) = DocumentParser.parse(parsed) else { throw ValidationError("invalid") }
            // As POST /v1/solve solves it.
            let solved = LayoutSystem.solveOnce(d)
            let body = ResultEncoder.solveBody(frames: solved.frames, diagnostics: solved.diagnostics)
            pipeline.append(Double(DispatchTime.now().uptimeNanoseconds - t0) / 1e6)
            bytes = body.count
        }
        emit(f(["case": "pipeline", "workload": workload, "views": views, "reps": reps, "document_bytes": text.count,
              "response_bytes": bytes, "ms_min": pipeline.min()!, "ms_p50": percentile(pipeline, 50),
              "ms_max": pipeline.max()!]))

        try sessionPatches(json, text: text, root: root, workload: workload, views: views)
        sessionWakes(json, text: text, workload: workload, views: views)
        let patch = Array(#"{"constraints":{"c1":{"constant":12}}}"#.utf8)
        try jsonParsers(document: text, patch: patch, workload: workload, views: views)
        try stackHide(workload: workload, views: views)
        try textResize(workload: workload, views: views)
        try explainCase(document, workload: workload, views: views, reps: reps)
    }

    func checksum(_ s: LayoutSystem) -> Double {
        s.frames().reduce(0) { $0 + $1.frame.x + $1.frame.y + $1.frame.width + $1.frame.height }
    }

    func percentile(_ values: [Double], _ p: Double) -> Double {
        guard !values.isEmpty else { return 0 }
        let v = values.sorted()
        let k = max(0, Int((p / 100 * Double(v.count)).rounded(.up)) - 1)
        return v[min(k, v.count - 1)]
    }

    func stats(_ values: [Double], _ unit: String) -> [(String, Any)] {
        f(["n": values.count, "\(unit)_min": values.min() ?? 0, "\(unit)_p50": percentile(values, 50),
         "\(unit)_p90": percentile(values, 90), "\(unit)_p99": percentile(values, 99),
         "\(unit)_max": values.max() ?? 0, "\(unit)_mean": values.isEmpty ? 0 : values.reduce(0, +) / Double(values.count)])
    }

    func f(_ kv: KeyValuePairs<String, Any>) -> [(String, Any)] { kv.map { ($0.key, $0.value) } }

    func emit(_ pairs: [(String, Any)]) {
        var w = JSONWriter()
        append(pairs, to: &w)
        print(String(decoding: w.bytes, as: UTF8.self))
    }

    /// An object of `pairs`; a value that is itself pairs is a nested object.
    func append(_ pairs: [(String, Any)], to w: inout JSONWriter) {
        w.appendRaw("{")
        for (i, (k, v)) in pairs.enumerated() {
            if i > 0 { w.appendRaw(",") }
            w.appendKey(k)
            switch v {
            case let s as String: w.appendString(s)
            case let n as Int: w.appendInteger(Int64(n))
            case let d as Double: w.appendNumber((d * 1000).rounded() / 1000)
            case let nested as [(String, Any)]: append(nested, to: &w)
            default: w.appendNull()
            }
        }
        w.appendRaw("}")
    }
}

