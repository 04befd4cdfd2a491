import ArgumentParser
import Foundation
import JSON
import LayoutAPI
import LayoutEngine
import LayoutModel

extension LayoutBench {
    /// `profile`: the cold pipeline of the document's text split into its phases (JSON parse,
    /// document validation, compilation, required adds, optional adds, values and frame index,
    /// response encoding), p50 of each over `reps` runs, then the tableau's rows by kind: where a
    /// cold solve's time and cells go.
    func profileCase(_ documentJSON: JSONValue, workload: String, views: Int, reps: Int) throws {
        let text = JSONWriter.serialize(documentJSON)
        let names = ["json_parse", "validate", "compile", "add_required", "add_optional", "finish", "encode", "total"]
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
            let (system, phases) = LayoutSystem.timedBuild(document: d, clock: clock)
            let t3 = clock()
            let body = ResultEncoder.solveBody(system)
            let t4 = clock()
            precondition(!body.isEmpty)
            let values = [t1 - t0, t2 - t1, phases.compileNanoseconds, phases.requiredNanoseconds,
                          phases.optionalNanoseconds, phases.finishNanoseconds, t4 - t3, t4 - t0]
            for (k, v) in values.enumerated() { samples[k].append(Double(v) / 1e6) }
            last = system
        }
        var pairs = f(["case": "profile", "workload": workload, "views": views, "reps": reps, "document_bytes": text.count])
        for (k, name) in names.enumerated() { pairs.append((name + "_ms_p50", percentile(samples[k], 50))) }
        let st = last!.solverStatistics
        pairs += f(["pivots": st.pivots, "rows": st.rows, "cells": st.cells,
                    "cells_per_row": Double(st.cells) / Double(max(1, st.rows))])
        emit(pairs)
        for line in last!.rowProfileLines() { FileHandle.standardError.write(Data(("  " + line + "\n").utf8)) }
    }
}
