/// An external variable of the solver (a frame value, for layoutd). Created by `Solver.addVariable()`.
public struct Variable: Hashable, Comparable, Sendable {
    /// The variable's symbol number in its solver (creation order).
    public let index: Int32
    init(_ index: Int32) { self.index = index }
    public static func < (a: Variable, b: Variable) -> Bool { a.index < b.index }
}

/// `coefficient · variable`.
public struct Term: Equatable, Sendable {
    public var variable: Variable
    public var coefficient: Double
    public init(_ variable: Variable, _ coefficient: Double = 1) {
        self.variable = variable
        self.coefficient = coefficient
    }
}

/// A linear expression `Σ coefficient·variable + constant`.
public struct Expression: Equatable, Sendable {
    public var terms: [Term]
    public var constant: Double
    public init(_ terms: [Term] = [], constant: Double = 0) {
        self.terms = terms
        self.constant = constant
    }
}

/// How an expression relates to zero: a constraint reads `expression REL 0`.
public enum Relation: Equatable, Sendable {
    case equal
    case lessOrEqual
    case greaterOrEqual
}

/// Priorities are strict levels: required is 1000, optional ones are in (0, 1000).
public enum Strength {
    public static let required = 1000.0
    /// The level of broken required constraints: above every optional level, below required.
    /// Internally it is the objective level keyed 1000 (required constraints have no objective).
    static let brokenLevel = 1000.0

    static func isValid(_ p: Double) -> Bool { p.isFinite && p > 0 && p <= 1000 }
}
