import JSON

/// A validated layout document (shared/spec/document.md, version 1), in processing order.
///
/// Built by `DocumentParser.parse(_:)` from JSON; every constraint entry is already expanded
/// into `LinearConstraint`s over anchors, so the engine only translates anchors to solver terms.
public struct Document: Equatable, Sendable {
    public var direction: LayoutDirection
    public var dialect: Dialect
    /// Views in document order (processing order of view-generated constraints).
    public var views: [View]
    /// Constraint entries in document order.
    public var constraints: [ConstraintEntry]
    /// `flags`, in document order.
    public var flags: [String: Bool]
    /// `delegate` map: constraint id → on/off. A missing entry keeps a delegate constraint's last state.
    public var delegate: [String: Bool]

    public init(direction: LayoutDirection = .leftToRight, dialect: Dialect = .standard,
                views: [View] = [], constraints: [ConstraintEntry] = [],
                flags: [String: Bool] = [:], delegate: [String: Bool] = [:]) {
        self.direction = direction
        self.dialect = dialect
        self.views = views
        self.constraints = constraints
        self.flags = flags
        self.delegate = delegate
    }
}

public enum LayoutDirection: String, Equatable, Sendable {
    case leftToRight = "ltr"
    case rightToLeft = "rtl"
}

/// The arithmetic of a seed library, where the libraries disagree (spec section 4).
public enum Dialect: String, Equatable, Sendable, CaseIterable {
    case standard, mag, mortar, cartography
}

public enum ViewKind: String, Equatable, Sendable {
    case view
    case guide
}

/// Optional frame fields. On a root: fixed inputs (nil width/height = fitting size).
/// On a non-root: each given field is a required constraint relative to the parent.
public struct FrameSpec: Equatable, Sendable {
    public var x: Double?
    public var y: Double?
    public var width: Double?
    public var height: Double?
    public init(x: Double? = nil, y: Double? = nil, width: Double? = nil, height: Double? = nil) {
        self.x = x; self.y = y; self.width = width; self.height = height
    }
}

/// A pair of priorities per axis (hugging, compression resistance).
public struct AxisPriorities: Equatable, Sendable {
    public var horizontal: Double
    public var vertical: Double
    public init(horizontal: Double, vertical: Double) {
        self.horizontal = horizontal; self.vertical = vertical
    }
}

public struct Insets: Equatable, Sendable {
    public var top: Double
    public var left: Double
    public var bottom: Double
    public var right: Double
    public init(top: Double, left: Double, bottom: Double, right: Double) {
        self.top = top; self.left = left; self.bottom = bottom; self.right = right
    }
    public static let defaultMargins = Insets(top: 8, left: 8, bottom: 8, right: 8)
}

public struct View: Equatable, Sendable {
    public var id: String
    /// nil = a root.
    public var parent: String?
    public var kind: ViewKind
    public var frame: FrameSpec
    public var hidden: Bool
    public var alpha: Double
    public var intrinsicWidth: Double?
    public var intrinsicHeight: Double?
    public var hugging: AxisPriorities
    public var compressionResistance: AxisPriorities
    public var margins: Insets
    /// Distance from the top edge down to the first baseline; nil = height (the bottom edge).
    public var firstBaseline: Double?
    /// Distance from the bottom edge up to the last baseline; default 0.
    public var lastBaseline: Double
    /// The view is a stack view: its arranged views' constraints are generated (nil: it is not).
    public var stack: StackSpec?
    /// Text whose height depends on the view's solved width (`text` or `heightForWidth`; nil: none).
    public var text: TextSpec?

    public init(id: String, parent: String? = nil, kind: ViewKind = .view, frame: FrameSpec = FrameSpec(),
                hidden: Bool = false, alpha: Double = 1, intrinsicWidth: Double? = nil,
                intrinsicHeight: Double? = nil,
                hugging: AxisPriorities = AxisPriorities(horizontal: 250, vertical: 250),
                compressionResistance: AxisPriorities = AxisPriorities(horizontal: 750, vertical: 750),
                margins: Insets = .defaultMargins, firstBaseline: Double? = nil, lastBaseline: Double = 0,
                stack: StackSpec? = nil, text: TextSpec? = nil) {
        self.id = id; self.parent = parent; self.kind = kind; self.frame = frame
        self.hidden = hidden; self.alpha = alpha
        self.intrinsicWidth = intrinsicWidth; self.intrinsicHeight = intrinsicHeight
        self.hugging = hugging; self.compressionResistance = compressionResistance
        self.margins = margins; self.firstBaseline = firstBaseline; self.lastBaseline = lastBaseline
        self.stack = stack
        self.text = text
    }

    public var isRoot: Bool { parent == nil }
}

/// Single attributes of the spec's anchor table (section 3). Aliases are resolved by the parser.
public enum Attribute: String, Equatable, Hashable, Sendable, CaseIterable {
    case left, right, top, bottom, leading, trailing, width, height, centerX, centerY
    case firstBaseline, lastBaseline
    case leftMargin, rightMargin, topMargin, bottomMargin, leadingMargin, trailingMargin
    case centerXWithinMargins, centerYWithinMargins

    public enum Axis: Equatable, Sendable { case horizontal, vertical }

    public var axis: Axis {
        switch self {
        case .left, .right, .leading, .trailing, .width, .centerX,
             .leftMargin, .rightMargin, .leadingMargin, .trailingMargin, .centerXWithinMargins:
            return .horizontal
        default:
            return .vertical
        }
    }

    /// width and height are dimensions; everything else is a position.
    public var isDimension: Bool { self == .width || self == .height }
    public var isMargin: Bool {
        switch self {
        case .leftMargin, .rightMargin, .topMargin, .bottomMargin, .leadingMargin, .trailingMargin,
             .centerXWithinMargins, .centerYWithinMargins: return true
        default: return false
        }
    }
    public var isBaseline: Bool { self == .firstBaseline || self == .lastBaseline }
    /// leading/trailing and their margin forms (direction-dependent).
    public var isDirectional: Bool {
        self == .leading || self == .trailing || self == .leadingMargin || self == .trailingMargin
    }
    /// left/right and their margin forms.
    public var isPhysicalHorizontal: Bool {
        self == .left || self == .right || self == .leftMargin || self == .rightMargin
    }
}

public struct Anchor: Equatable, Hashable, Sendable, CustomStringConvertible {
    public var view: String
    public var attribute: Attribute
    public init(_ view: String, _ attribute: Attribute) { self.view = view; self.attribute = attribute }
    public var description: String { "\(view).\(attribute.rawValue)" }
}

public enum Relation: String, Equatable, Sendable {
    case equal = "=="
    case lessOrEqual = "<="
    case greaterOrEqual = ">="
}

public struct LinearTerm: Equatable, Sendable {
    public var anchor: Anchor
    public var coefficient: Double
    public init(_ anchor: Anchor, _ coefficient: Double) { self.anchor = anchor; self.coefficient = coefficient }
}

/// One solver-level constraint in Auto Layout's words: `Σ coefficient·anchor + constant  REL  0`.
///
/// Every constraint form (object, expression, visual format, helper) lowers to these; a composite
/// makes one per component. `first REL m·second + c` becomes terms `[first: 1, second: -m]`,
/// constant `-c`.
public struct LinearConstraint: Equatable, Sendable {
    public var terms: [LinearTerm]
    public var constant: Double
    public var relation: Relation
    /// (0, 1000]; 1000 = required.
    public var priority: Double
    /// Views this constraint names, in order of appearance, without duplicates; includes the
    /// superview for a `|` in a visual format. Used by `bothVisible`.
    public var views: [String]
    /// The first item's view (for `firstInvisible`); nil when the first item is not a view anchor.
    public var firstView: String?

    public init(terms: [LinearTerm], constant: Double, relation: Relation, priority: Double,
                views: [String], firstView: String?) {
        self.terms = terms; self.constant = constant; self.relation = relation
        self.priority = priority; self.views = views; self.firstView = firstView
    }
}

/// A `when` predicate of an activation rule (spec section 5).
public indirect enum Predicate: Equatable, Sendable {
    case visible(String)
    case hidden(String)
    case flag(String)
    /// `root.width < 600`: a root view's input width or height compared with a number.
    case compare(view: String, dimension: Attribute, op: ComparisonOp, value: Double)
    case not(Predicate)
    case and(Predicate, Predicate)
    case or(Predicate, Predicate)
    case constant(Bool)

    public enum ComparisonOp: String, Equatable, Sendable {
        case less = "<", lessOrEqual = "<=", greater = ">", greaterOrEqual = ">=", equal = "==", notEqual = "!="
    }
}

public enum Activation: Equatable, Sendable {
    case always
    case manual
    case bothVisible
    case firstInvisible
    case delegate
    case when(Predicate)
}

/// One entry of the document's `constraints`, expanded.
public struct ConstraintEntry: Equatable, Sendable {
    public var id: String
    public var activation: Activation
    /// `active` field; nil = absent (true). `false` switches the entry off whatever its rule.
    public var active: Bool?
    public var group: String?
    public var identifier: String?
    /// The solver-level constraints this entry makes, in component order.
    public var items: [LinearConstraint]

    public init(id: String, activation: Activation = .always, active: Bool? = nil, group: String? = nil,
                identifier: String? = nil, items: [LinearConstraint]) {
        self.id = id; self.activation = activation; self.active = active
        self.group = group; self.identifier = identifier; self.items = items
    }
}
