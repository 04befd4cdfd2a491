import ArgumentParser
import Foundation
import JSON
import LayoutAPI
import LayoutEngine
import LayoutModel

extension LayoutBench {
    /// `profile`: the cold pipeline of the document's text (as `POST /v1/solve` runs it: a one-shot
    /// build, `LayoutSystem.solveOnce`) split into its phases (JSON parse,
    /// document validation, compilation, required adds, optional adds, values and frame index,
    /// response encoding), p50 of each over `reps` runs, then the tableau's rows by kind: where a
    /// cold solve's time and cells go.
    func profileCase(_ documentJSON: JSONValue, workload: String, views: Int, reps: Int) throws {
        let text = JSONWriter.serialize(documentJSON)
        let names = ["json_parse", "validate", "compile", "add_required", "add_optional", "finish", "encode", "total"]
        // Memory first: the timed runs leave the heap grown, which would hide each phase's peak RSS.
        let memory = try memoryPhases(text)
        var samples = [[Double]](repeating: [], count: names.count)
        var last: LayoutSystem? = nil
        let clock = { DispatchTime.now().uptimeNanoseconds }
        for _ in 0..<reps {
            last = nil
            let t0 = clock()
            var t1: UInt64 = 0
            // The tree ends with validation, as the temporary of `POST /v1/solve` does (its release is
            // validation's cost): left to the optimizer, it may live on through the build, which
            // moves its release out of the timed phases and adds the tree to the build's peak memory.
            let validated: Result<Document, LayoutModel.ValidationError> = try {
                let parsed = try JSONParser.parse(text)
                t1 = clock()
                return DocumentParser.parse(parsed)
            }()
            guard case .success(let d) = validated else { throw ValidationError("invalid") }
            let t2 = clock()
            let (system, phases) = LayoutSystem.timedBuild(document: d, once: true, clock: clock)
            let t3 = clock()
            let body = ResultEncoder.solveBody(system)
            let t4 = clock()
            precondition(!body.isEmpty)
            let values = [t1 - t0, t2 - t1, phases.compileNanoseconds, phases.requiredNanoseconds,
                          phases.optionalNanoseconds, phases.finishNanoseconds, t4 - t3, t4 - t0]
            for (k, v) in values.enumerated() { samples[k].append(Double(v) / 1e6) }
            last = system
        }
        let st = last!.solverStatistics
        let rowLines = last!.rowProfileLines()
        last = nil
        var pairs = f(["case": "profile", "workload": workload, "views": views, "reps": reps, "document_bytes": text.count])
        for (k, name) in names.enumerated() { pairs.append((name + "_ms_p50", percentile(samples[k], 50))) }
        pairs += f(["pivots": st.pivots, "rows": st.rows, "cells": st.cells,
                    "cells_per_row": Double(st.cells) / Double(max(1, st.rows))])
        pairs.append(("memory", memory))
        emit(pairs)
        for line in rowLines { FileHandle.standardError.write(Data(("  " + line + "\n").utf8)) }
    }

    /// One untimed pass of the pipeline with `MemoryProbe` samples at its phase boundaries, with
    /// the lifetimes of `layoutd solve` (the text held throughout, the JSON tree released once the
    /// document exists, the system once the answer is encoded): per phase, `live_mb` is what the
    /// pipeline holds at its end (the text included), `peak_rss_mb` the highest resident set
    /// during it and `rss_mb` the resident set at its end (both above the resident set before the
    /// pass: the bench's own bundle is not counted).
    func memoryPhases(_ text: [UInt8]) throws -> [(String, Any)] {
        let probe = MemoryProbe()
        guard probe.available else { return f(["unavailable": "no /proc/self/clear_refs"]) }
        var rows: [(String, MemoryProbe.Sample)] = []
        let base = probe.sample()
        var document: Document?
        do {
            let parsed = try JSONParser.parse(text)
            rows.append(("json_parse", probe.sample()))
            guard case .success(let d) = DocumentParser.parse(parsed) else { throw ValidationError("invalid") }
            document = d
            rows.append(("validate", probe.sample()))
        }
        rows.append(("json_tree_released", probe.sample()))
        var buildSamples: [MemoryProbe.Sample] = []
        var system: LayoutSystem? = LayoutSystem.timedBuild(document: document.take()!, once: true, clock: {
            buildSamples.append(probe.sample())
            return 0
        }).0
        // The build's clock is read once before compiling, then at the end of each phase.
        for (name, sample) in zip(["compile", "add_required", "add_optional", "finish"], buildSamples.dropFirst()) {
            rows.append((name, sample))
        }
        let body = ResultEncoder.solveBody(system!)
        rows.append(("encode", probe.sample()))
        system = nil
        rows.append(("system_released", probe.sample()))
        precondition(!body.isEmpty)
        let mb = { (bytes: Int) in Double(bytes) / 1e6 }
        return rows.map { name, s in
            (name, f(["live_mb": mb(s.liveBytes - base.liveBytes + text.count),
                      "peak_rss_mb": mb(1024 * (s.peakKiB - base.rssKiB)), "rss_mb": mb(1024 * (s.rssKiB - base.rssKiB))]))
        }
    }
}
