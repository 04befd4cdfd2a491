/// Every tolerance the solver uses, in one place. Layout values are points (1e0 to 1e4, a few
/// digits after the point) and coefficients small integers or ratios, so doubles carry ~16
/// significant digits and the error a chain of pivots accumulates stays far below these.
enum Tolerance {
    /// A coefficient or constant below this magnitude is zero: dropped from rows and objectives,
    /// and a reduced cost or row constant within it of zero counts as zero (so a row is
    /// infeasible below `-zero`; a row is degenerate with a constant below it). The free cone
    /// uses it too: a product with a row below it leaves the row where it is, and generators
    /// are compared to within it. Well above accumulated rounding (~1e-12 relative after the
    /// pivots of a large layout), far below anything a layout means (a hundredth of a point).
    static let zero = 1e-9

    /// A required equality's row (a dummy's) or the artificial objective is "0" below this.
    /// Looser than `zero`: these constants are sums over many rows that a conflict check or
    /// the artificial phase leaves behind, so they carry more rounding than one coefficient;
    /// treating 1e-9-sized residue there as a conflict would report one that does not exist.
    static let feasibility = 1e-8

    /// A free direction's rate (how fast a variable moves along it) below this is no movement.
    /// Rates are products of several coefficients: anything this small is rounding of a
    /// cancelled term, not a direction a view can move in.
    static let rate = 1e-12

    /// `checkInvariants()` (tests): a restricted row may be this negative and a dummy row this far
    /// from 0 before it is reported. Looser than `zero`: the invariants are checked after long
    /// random sequences, whose drift is legitimately larger than one step's.
    static let invariantRow = 1e-7

    /// `checkInvariants()` (tests): a cached value may differ from the rows' value by this,
    /// relative to the value (at least 1): cached values are updated incrementally (shift
    /// plans add `rate · shift`), the check evaluates from scratch.
    static let invariantValue = 1e-6
}
