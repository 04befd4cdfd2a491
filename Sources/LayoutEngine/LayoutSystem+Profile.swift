import Cassowary
import LayoutModel

/// Where a fresh build's time went (`layout-bench`'s `profile` case): compilation, the required
/// constraints' adds, the optional ones' adds (each add includes its simplex pass), and the rest
/// (frame index, values).
public struct BuildPhases: Sendable {
    public var compileNanoseconds: UInt64 = 0
    public var requiredNanoseconds: UInt64 = 0
    public var optionalNanoseconds: UInt64 = 0
    public var finishNanoseconds: UInt64 = 0
}

extension LayoutSystem {
    /// Builds `document` as `init(document:)` does (as `solveOnce` does when `once`), timing each
    /// phase with `clock` (nanoseconds).
    public static func timedBuild(document: consuming Document, once: Bool = false,
                                  clock: () -> UInt64) -> (LayoutSystem, BuildPhases) {
        var system = LayoutSystem(unbuilt: document)
        system.solvedOnce = once
        let phases = withoutActuallyEscaping(clock) { system.build(rememberingDelegates: [:], clock: $0) }
        return (system, phases)
    }

    private init(unbuilt document: consuming Document) {
        self.activation = ActivationContext(document: copy document, delegateMemory: [:])
        self.document = document
    }

    /// The tableau's rows by kind (count, cells, longest and whose) and the objective rows'
    /// lengths, one line each: where the cells of a large build are.
    public func rowProfileLines() -> [String] {
        let (rows, objectives) = solver.rowProfile()
        var lines: [String] = []
        for p in rows {
            var owner = "-"
            if let id = p.longestOwner, let position = positionOfConstraint[id.index] { owner = compiled[Int(position)].ownerID }
            lines.append("\(p.kind): rows \(p.rows) cells \(p.cells) mean \(p.rows == 0 ? 0 : Double(p.cells) / Double(p.rows)) longest \(p.longest) (\(owner))")
        }
        lines.append("objectives: \(objectives)")
        return lines
    }
}
