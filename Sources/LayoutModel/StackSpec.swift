/// A view's `stack` member: UIStackView's properties (docs/document.md, "Stack views"). The
/// engine compiles it to constraints the way UIKit's stack view does (`LayoutEngine`'s
/// `StackCompiler`); the model only holds and validates it.
public struct StackSpec: Equatable, Sendable {
    public enum Axis: String, Equatable, Sendable, CaseIterable {
        case horizontal, vertical
    }

    public enum Distribution: String, Equatable, Sendable, CaseIterable {
        case fill, fillEqually, fillProportionally, equalSpacing, equalCentering

        /// `equalSpacing` and `equalCentering` keep `spacing` as a minimum; the `fill*` ones keep
        /// it exactly (UIKit's documentation of each case).
        public var spacingIsMinimum: Bool { self == .equalSpacing || self == .equalCentering }
    }

    /// UIKit's alignments. `top` and `leading` are one value in UIKit (as are `bottom` and
    /// `trailing`): the start of the cross axis, whichever the stack's axis.
    public enum Alignment: String, Equatable, Sendable, CaseIterable {
        case fill, leading, top, center, trailing, bottom, firstBaseline, lastBaseline

        /// The alignment with UIKit's aliases resolved (`top` → `leading`, `bottom` → `trailing`).
        public var resolved: Alignment {
            switch self {
            case .top: return .leading
            case .bottom: return .trailing
            default: return self
            }
        }

        public var isBaseline: Bool { self == .firstBaseline || self == .lastBaseline }
    }

    public var axis: Axis
    /// Arranged view ids, in stacking order.
    public var arranged: [String]
    public var spacing: Double
    public var distribution: Distribution
    public var alignment: Alignment
    /// UIKit's `isLayoutMarginsRelativeArrangement`: the canvas is the stack's margins.
    public var layoutMarginsRelative: Bool
    /// UIKit's `isBaselineRelativeArrangement`: in a vertical stack, spacing runs from a view's
    /// last baseline to the next one's first baseline.
    public var baselineRelative: Bool

    /// UIKit's defaults: horizontal, spacing 0, fill, fill.
    public init(axis: Axis = .horizontal, arranged: [String] = [], spacing: Double = 0,
                distribution: Distribution = .fill, alignment: Alignment = .fill,
                layoutMarginsRelative: Bool = false, baselineRelative: Bool = false) {
        self.axis = axis; self.arranged = arranged; self.spacing = spacing
        self.distribution = distribution; self.alignment = alignment
        self.layoutMarginsRelative = layoutMarginsRelative; self.baselineRelative = baselineRelative
    }
}
