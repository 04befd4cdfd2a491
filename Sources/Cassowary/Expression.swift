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

/// A handle on a constraint held by a solver.
public struct ConstraintID: Hashable, Comparable, Sendable {
    public let index: Int32
    init(_ index: Int32) { self.index = index }
    public static func < (a: ConstraintID, b: ConstraintID) -> Bool { a.index < b.index }
}

/// What `add` does with a required constraint that cannot hold together with the required
/// constraints already in place.
public enum ConflictPolicy: Equatable, Sendable {
    /// Keep it *broken*, as Apple's engine does: held with its error minimised at a level above
    /// every optional priority and below required.
    case keepBroken
    /// Throw `SolverError.unsatisfiable` and leave the solver exactly as before the call.
    case reject
}

/// Priorities are strict levels: required is 1000, optional ones are in (0, 1000).
public enum Strength {
    public static let required = 1000.0
    /// The level of broken required constraints: above every optional level, below required.
    /// Internally it is the objective level keyed 1000 (required constraints have no objective).
    static let brokenLevel = 1000.0

    static func isValid(_ p: Double) -> Bool { p.isFinite && p > 0 && p <= 1000 }
}

public enum SolverError: Error, Equatable, Sendable {
    /// A required constraint cannot hold together with the required constraints in place; it
    /// conflicts with these (the required constraints whose markers carry the infeasibility).
    case unsatisfiable(conflicts: [ConstraintID])
    /// The constraint handle does not belong to a constraint in this solver.
    case unknownConstraint
    /// A priority outside (0, 1000], or a non-finite coefficient or constant.
    case invalidArgument(String)
    /// The variable already has an edit constraint.
    case duplicateEditVariable
    /// The variable has no edit constraint.
    case unknownEditVariable
}

/// Result of adding a constraint.
public struct AddResult: Equatable, Sendable {
    public let id: ConstraintID
    /// True when the constraint was required, could not hold, and is kept broken.
    public let isBroken: Bool
    /// For a broken constraint, the required constraints it conflicts with (ascending).
    public let conflicts: [ConstraintID]
}

/// What operations cost, cumulatively; callers diff two readings.
public struct SolverStatistics: Equatable, Sendable {
    public var pivots: Int = 0
    public var rows: Int = 0
    public var cells: Int = 0
    /// Cells holding required equalities' markers (bookkeeping for removal and constant changes).
    public var dummyCells: Int = 0
    public var levels: Int = 0
    /// Shift plans made (see `Solver.setConstant(_:to:repeated:)`).
    public var shiftPlansMade: Int = 0
}
