/// Composite anchors (spec section 3): several attributes written as one, expanded component-wise.
public enum Composite: String, Equatable, Hashable, Sendable, CaseIterable {
    case size, center, edges, horizontal, vertical, sides, caps
    case cornerTL, cornerTR, cornerBL, cornerBR
    case frame, edgesWithinMargins, centerWithinMargins

    /// The component attributes, in the spec's order.
    public var components: [Attribute] {
        switch self {
        case .size: return [.width, .height]
        case .center: return [.centerX, .centerY]
        case .edges: return [.top, .leading, .bottom, .trailing]
        case .horizontal: return [.leading, .trailing]
        case .vertical: return [.top, .bottom]
        case .sides: return [.left, .right]
        case .caps: return [.top, .bottom]
        case .cornerTL: return [.top, .left]
        case .cornerTR: return [.top, .right]
        case .cornerBL: return [.bottom, .left]
        case .cornerBR: return [.bottom, .right]
        case .frame: return [.left, .top, .width, .height]
        case .edgesWithinMargins: return [.topMargin, .leadingMargin, .bottomMargin, .trailingMargin]
        case .centerWithinMargins: return [.centerXWithinMargins, .centerYWithinMargins]
        }
    }

    /// Whether constants of this composite are insets (bottom/trailing/right components negated).
    public var isInset: Bool {
        switch self {
        case .edges, .horizontal, .vertical, .sides, .caps, .edgesWithinMargins: return true
        default: return false
        }
    }

    /// The sign an inset constant gets per component: +1 for top/leading/left, -1 for
    /// bottom/trailing/right. All +1 for composites that are not insets.
    public var insetSigns: [Double] {
        switch self {
        case .edges, .edgesWithinMargins: return [1, 1, -1, -1]
        case .horizontal, .vertical, .sides, .caps: return [1, -1]
        default: return Array(repeating: 1, count: components.count)
        }
    }

    /// Whether `self` and `other` can stand on the two sides of one constraint: the same number of
    /// components, and component by component the same axis and the same kind (position or
    /// dimension). So edges pair with edgesWithinMargins, center with centerWithinMargins, corners
    /// with each other, vertical with caps; size never pairs with center.
    public func pairs(with other: Composite) -> Bool {
        let a = components, b = other.components
        guard a.count == b.count else { return false }
        return zip(a, b).allSatisfy { $0.axis == $1.axis && $0.isDimension == $1.isDimension }
    }

    /// Keys of the object constant form, in component order (missing keys are 0).
    public var constantKeys: [String] {
        switch self {
        case .size: return ["width", "height"]
        case .center, .centerWithinMargins: return ["x", "y"]
        case .edges, .edgesWithinMargins, .horizontal, .vertical, .sides, .caps:
            return ["top", "left", "bottom", "right"]
        case .cornerTL: return ["top", "left"]
        case .cornerTR: return ["top", "right"]
        case .cornerBL: return ["bottom", "left"]
        case .cornerBR: return ["bottom", "right"]
        case .frame: return ["x", "y", "width", "height"]
        }
    }

    /// A human description of the accepted constant forms (for problem details).
    public var constantFormsDescription: String {
        switch self {
        case .edges, .edgesWithinMargins:
            return "a number, [top, left, bottom, right] or {top, left, bottom, right}"
        case .horizontal, .sides:
            return "a number, [left, right], [top, left, bottom, right] or {left, right}"
        case .vertical, .caps:
            return "a number, [top, bottom], [top, left, bottom, right] or {top, bottom}"
        default:
            let n = components.count
            return "a number, an array of \(n) numbers or {\(constantKeys.joined(separator: ", "))}"
        }
    }

    /// The per-component constants of a constant form, in component order, with the inset signs
    /// applied when `signed` is true (and the composite is an inset).
    ///
    /// - `.scalar(c)`: c for every component.
    /// - `.list`: one per component; insets also take the (top, left, bottom, right) 4-form, of
    ///   which horizontal/sides use left and right, vertical/caps top and bottom.
    /// - `.keyed`: keys of `constantKeys`, missing ones 0.
    /// - Returns: nil when the form does not fit this composite.
    public func constants(_ form: ConstantForm, signed: Bool = true) -> [Double]? {
        let raw: [Double]
        switch form {
        case .scalar(let c):
            raw = Array(repeating: c, count: components.count)
        case .list(let values):
            guard let r = fromList(values) else { return nil }
            raw = r
        case .keyed(let pairs):
            let keys = constantKeys
            guard pairs.allSatisfy({ keys.contains($0.key) }) else { return nil }
            var byKey: [String: Double] = [:]
            for (k, v) in pairs { byKey[k] = v }
            raw = fromList(keys.map { byKey[$0] ?? 0 }) ?? []
        }
        guard signed else { return raw }
        return zip(raw, insetSigns).map { $0 * $1 }
    }

    private func fromList(_ values: [Double]) -> [Double]? {
        if values.count == components.count { return values }
        guard values.count == 4 else { return nil }
        switch self {
        case .horizontal, .sides: return [values[1], values[3]]
        case .vertical, .caps: return [values[0], values[2]]
        default: return nil
        }
    }
}

/// A constant as written: one number, a list (JSON array or expression tuple), or an object.
public enum ConstantForm: Equatable, Sendable {
    case scalar(Double)
    case list([Double])
    case keyed([(key: String, value: Double)])

    public static func == (a: ConstantForm, b: ConstantForm) -> Bool {
        switch (a, b) {
        case (.scalar(let x), .scalar(let y)): return x == y
        case (.list(let x), .list(let y)): return x == y
        case (.keyed(let x), .keyed(let y)):
            return x.count == y.count && zip(x, y).allSatisfy { $0.key == $1.key && $0.value == $1.value }
        default: return false
        }
    }
}
