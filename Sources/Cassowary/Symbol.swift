/// The kinds of symbols of the Cassowary tableau (Badros, Borning & Stuckey, 2001).
enum SymbolKind: UInt8 {
    /// A client variable: unrestricted in sign.
    case external
    /// The slack of an inequality: >= 0.
    case slack
    /// An error variable of an optional constraint: >= 0, weighted in the objective.
    case error
    /// The marker of a required equality: fixed at 0, never enters the basis.
    case dummy
}

extension SymbolKind {
    /// Restricted symbols must stay >= 0 when basic.
    var isRestricted: Bool { self != .external }
    /// Pivotable symbols may enter the basis during optimisation.
    var isPivotable: Bool { self == .slack || self == .error }
}
