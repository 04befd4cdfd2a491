import Cassowary
import LayoutModel

/// A view's four solver variables, in root coordinates.
public struct ViewVariables: Sendable {
    public var minX: Variable
    public var minY: Variable
    public var width: Variable
    public var height: Variable
}

/// The one place where Auto Layout's anchors become Cassowary terms (spec section 3).
///
/// Every attribute is `Σ coefficient·variable + constant` over the view's minX, minY, width,
/// height; direction decides leading/trailing (rtl mirrors the horizontal axis for them:
/// leading = -(right), trailing = -(left)), margins and baselines add constants.
enum AnchorTranslation {
    /// Adds `coefficient · anchor` to `terms`/`constant`.
    static func accumulate(_ attribute: Attribute, of view: View, _ v: ViewVariables, direction: LayoutDirection,
                           coefficient k: Double, into terms: inout [Term], constant: inout Double) {
        let rtl = direction == .rightToLeft
        let m = view.margins
        func add(_ x: Variable, _ c: Double) { terms.append(Term(x, k * c)) }
        switch attribute {
        case .left: add(v.minX, 1)
        case .right: add(v.minX, 1); add(v.width, 1)
        case .top: add(v.minY, 1)
        case .bottom: add(v.minY, 1); add(v.height, 1)
        case .width: add(v.width, 1)
        case .height: add(v.height, 1)
        case .centerX: add(v.minX, 1); add(v.width, 0.5)
        case .centerY: add(v.minY, 1); add(v.height, 0.5)
        case .leading:
            if rtl { add(v.minX, -1); add(v.width, -1) } else { add(v.minX, 1) }
        case .trailing:
            if rtl { add(v.minX, -1) } else { add(v.minX, 1); add(v.width, 1) }
        case .firstBaseline:
            add(v.minY, 1)
            if let first = view.firstBaseline { constant += k * first } else { add(v.height, 1) }
        case .lastBaseline:
            add(v.minY, 1); add(v.height, 1); constant -= k * view.lastBaseline
        case .leftMargin: add(v.minX, 1); constant += k * m.left
        case .rightMargin: add(v.minX, 1); add(v.width, 1); constant -= k * m.right
        case .topMargin: add(v.minY, 1); constant += k * m.top
        case .bottomMargin: add(v.minY, 1); add(v.height, 1); constant -= k * m.bottom
        case .leadingMargin:
            if rtl { add(v.minX, -1); add(v.width, -1); constant += k * m.right } else { add(v.minX, 1); constant += k * m.left }
        case .trailingMargin:
            if rtl { add(v.minX, -1); constant -= k * m.left } else { add(v.minX, 1); add(v.width, 1); constant -= k * m.right }
        case .centerXWithinMargins:
            add(v.minX, 1); add(v.width, 0.5); constant += k * 0.5 * (m.left - m.right)
        case .centerYWithinMargins:
            add(v.minY, 1); add(v.height, 0.5); constant += k * 0.5 * (m.top - m.bottom)
        }
    }

    /// Whether `accumulate` leaves the constant alone for `attribute` (no margin, no baseline):
    /// a constraint made only of such anchors compiles to its own constant, exactly.
    static func addsNoConstant(_ attribute: Attribute) -> Bool {
        switch attribute {
        case .left, .right, .top, .bottom, .width, .height, .centerX, .centerY, .leading, .trailing: return true
        case .firstBaseline, .lastBaseline, .leftMargin, .rightMargin, .topMargin, .bottomMargin,
             .leadingMargin, .trailingMargin, .centerXWithinMargins, .centerYWithinMargins: return false
        }
    }

    /// Sums duplicate variables and drops zero terms, ascending by variable: a canonical form, so
    /// that two compilations of the same constraint compare equal.
    static func canonical(_ terms: [Term]) -> [Term] {
        // Constraints hold a handful of terms: an insertion sort that merges as it goes beats a
        // general sort plus a filter.
        var out: [Term] = []
        out.reserveCapacity(terms.count)
        for t in terms {
            var i = out.count
            while i > 0 && t.variable < out[i - 1].variable { i -= 1 }
            if i > 0 && out[i - 1].variable == t.variable {
                out[i - 1].coefficient += t.coefficient
            } else {
                out.insert(t, at: i)
            }
        }
        out.removeAll { $0.coefficient == 0 }
        return out
    }
}
