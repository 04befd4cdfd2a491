import LayoutModel

/// What a document solved once answers: `POST /v1/solve`, `layoutd solve`.
public struct SolvedOnce: Sendable {
    public var frames: [(id: String, frame: Frame)]
    public var diagnostics: Diagnostics
}

extension LayoutSystem {
    /// Solves `document` from scratch and answers its frames and diagnostics: exactly what
    /// `LayoutSystem(document:)`'s `frames(coordinates)` and `diagnostics` answer
    /// (`SolveOnceTests`), holding less at the peak of the build.
    ///
    /// A system that will never be edited does not need what only edits read again: once the
    /// document is compiled, its entries' items (the compilation has them all; two thirds of what
    /// a `form` document weighs), which would otherwise sit beside the tableau while it grows.
    /// The compiled constraints stay: the solver's records share their terms, and diagnostics
    /// name their owners. A document with text keeps its items: settling its heights may
    /// rebuild, which compiles the document again. The caller should pass its only reference
    /// (`consume`): otherwise emptying the items copies the entries and frees nothing.
    public static func solveOnce(_ document: consuming Document, coordinates: Coordinates = .relative) -> SolvedOnce {
        let system = LayoutSystem(document: document, delegateMemory: [:], once: true)
        let diagnostics = system.diagnostics
        return SolvedOnce(frames: system.frames(coordinates), diagnostics: diagnostics)
    }

    /// A one-shot build lets go of what only edits read (see `solveOnce`).
    var releasesForEdits: Bool { solvedOnce && textViews.isEmpty }

    /// Empties the entries' items in place: ids, activation and labels stay (the diagnostics
    /// name entries and their group and identifier). In place rather than by a mapped copy: when
    /// the system holds the only reference there is no second array of entries at all.
    mutating func releaseEntryItems() {
        for i in document.constraints.indices { document.constraints[i].items = [] }
    }
}
