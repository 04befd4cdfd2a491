// The handles and answers of `Solver.add` and the errors of every throwing operation.

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
