import Cassowary
import LayoutModel

/// Writes solver-level constraints (terms over views' minX, minY, width and height, in root
/// coordinates) as a person reads them: `below.top = label.bottom + 8`.
///
/// A view's terms are read back as one anchor where they add up to one (minY + height is its
/// bottom, minX + ½·width its centerX) and as left/top plus width/height otherwise. Physical names
/// (left, right) are used, whatever the document's direction: the solver's terms no longer say
/// whether the document wrote leading or left.
struct ConstraintRenderer {
    enum Field { case minX, minY, width, height }

    /// One anchor of a rendered side: `coefficient · view.name`.
    struct Piece {
        var coefficient: Double
        var view: Int
        var name: String
    }

    private let views: [View]
    private let viewVariables: [ViewVariables?]
    /// Variable index → view position (-1: no view's): the system's `viewOfVariable`, so that a
    /// renderer, made for each explanation, costs nothing to make (no map of every view's
    /// variables built per request).
    private let viewOfVariable: [Int32]

    /// - Parameters: `viewVariables`: each view's variables in view order; `viewOfVariable`: each
    ///   variable's view position, -1 for none (as `LayoutSystem` keeps them).
    init(views: [View], viewVariables: [ViewVariables?], viewOfVariable: [Int32]) {
        self.views = views
        self.viewVariables = viewVariables
        self.viewOfVariable = viewOfVariable
    }

    private func owner(_ v: Variable) -> (view: Int, field: Field)? {
        let i = Int(v.index)
        guard i >= 0, i < viewOfVariable.count else { return nil }
        let view = Int(viewOfVariable[i])
        guard view >= 0, view < viewVariables.count, let vars = viewVariables[view] else { return nil }
        switch v {
        case vars.minX: return (view, .minX)
        case vars.minY: return (view, .minY)
        case vars.width: return (view, .width)
        case vars.height: return (view, .height)
        default: return nil
        }
    }

    /// The view position whose variable `v` is (nil: no view's).
    func view(of v: Variable) -> Int? { owner(v)?.view }

    /// The terms as anchors, views in order of first appearance.
    func pieces(_ terms: [Term]) -> [Piece] {
        // A constraint names few views: their sums in small arrays, not maps (this runs for every
        // constraint of an answer, twice: its text and its step of the chain).
        var order: [Int] = []
        var sums: [(minX: Double, minY: Double, width: Double, height: Double)] = []
        var loose: [Piece] = []
        for t in terms {
            guard let owner = owner(t.variable) else {
                loose.append(Piece(coefficient: t.coefficient, view: -1, name: "v\(t.variable.index)"))
                continue
            }
            let k: Int
            if let found = order.firstIndex(of: owner.view) {
                k = found
            } else {
                order.append(owner.view)
                sums.append((0, 0, 0, 0))
                k = order.count - 1
            }
            switch owner.field {
            case .minX: sums[k].minX += t.coefficient
            case .minY: sums[k].minY += t.coefficient
            case .width: sums[k].width += t.coefficient
            case .height: sums[k].height += t.coefficient
            }
        }
        var out: [Piece] = []
        for (k, view) in order.enumerated() {
            let s = sums[k]
            out += axis(view, s.minX, s.width, names: ("left", "right", "centerX", "width"))
            out += axis(view, s.minY, s.height, names: ("top", "bottom", "centerY", "height"))
        }
        return out + loose
    }

    private func axis(_ view: Int, _ position: Double, _ size: Double,
                      names: (start: String, end: String, center: String, size: String)) -> [Piece] {
        func piece(_ c: Double, _ name: String) -> Piece { Piece(coefficient: c, view: view, name: "\(views[view].id).\(name)") }
        if position == 0 { return size == 0 ? [] : [piece(size, names.size)] }
        if size == 0 { return [piece(position, names.start)] }
        if size == position { return [piece(position, names.end)] }
        if size == position / 2 { return [piece(position, names.center)] }
        return [piece(position, names.start), piece(size, names.size)]
    }

    /// `Σ terms + constant REL 0` as `left REL right`: the anchors of the view at `subject` on the
    /// left (without one, the view latest in the document: a child comes after its parent, a
    /// following view after the one it follows, as in `below.top == label.bottom + 8`), scaled so that a single one reads with
    /// coefficient 1; `equals` is the equality sign (`=` in a chain, `==` in a constraint's text).
    func equation(_ terms: [Term], constant: Double, relation: Cassowary.Relation, subject: Int?,
                  equals: String = "==") -> String {
        let all = pieces(terms)
        let subjectView = subject.flatMap { s in all.contains { $0.view == s } ? s : nil } ?? all.map(\.view).max()
        var left = all.filter { $0.view == subjectView }
        // The other side: moved across, so negated (`a - b - 8 == 0` reads `a == b + 8`).
        var right = all.filter { $0.view != subjectView }.map { Piece(coefficient: -$0.coefficient, view: $0.view, name: $0.name) }
        var c = -constant
        var relation = relation
        let scale = left.count == 1 ? left[0].coefficient : (left.first.map { $0.coefficient < 0 ? -1.0 : 1.0 } ?? 1.0)
        if scale != 1 && scale != 0 {
            left = left.map { Piece(coefficient: $0.coefficient / scale, view: $0.view, name: $0.name) }
            right = right.map { Piece(coefficient: $0.coefficient / scale, view: $0.view, name: $0.name) }
            c /= scale
            if scale < 0 { relation = relation.flipped }
        }
        let sign: String
        switch relation {
        case .equal: sign = equals
        case .lessOrEqual: sign = "<="
        case .greaterOrEqual: sign = ">="
        }
        return "\(Self.sum(left, constant: 0)) \(sign) \(Self.sum(right, constant: c))"
    }

    /// `a + 0.5 * b - 8`; `0` when empty.
    static func sum(_ pieces: [Piece], constant: Double) -> String {
        var out = ""
        for p in pieces {
            let magnitude = abs(p.coefficient)
            let term = magnitude == 1 ? p.name : "\(number(magnitude)) * \(p.name)"
            if out.isEmpty {
                out = p.coefficient < 0 ? "-" + term : term
            } else {
                out += (p.coefficient < 0 ? " - " : " + ") + term
            }
        }
        let k = LayoutSystem.clean(constant)
        if out.isEmpty { return number(k) }
        if k != 0 { out += (k < 0 ? " - " : " + ") + number(abs(k)) }
        return out
    }

    /// `8`, `0.5`, `-12.25`: integers without a fraction.
    static func number(_ value: Double) -> String {
        let v = LayoutSystem.clean(value)
        if v == v.rounded(), abs(v) < 1e15 { return String(Int64(v)) }
        return String(v)
    }
}

extension Cassowary.Relation {
    /// The relation after multiplying both sides by a negative number.
    var flipped: Cassowary.Relation {
        switch self {
        case .equal: return .equal
        case .lessOrEqual: return .greaterOrEqual
        case .greaterOrEqual: return .lessOrEqual
        }
    }
}
