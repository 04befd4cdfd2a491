import Cassowary
import LayoutModel

extension LayoutSystem {
    /// The variables of a view, created on first use.
    mutating func variables(for id: String) -> ViewVariables {
        if let v = variables[id] { return v }
        let v = ViewVariables(minX: solver.addVariable(), minY: solver.addVariable(),
                              width: solver.addVariable(), height: solver.addVariable())
        variables[id] = v
        return v
    }

    /// Compiles a document into solver-level constraints in processing order (spec section 1):
    /// first what views generate (frame fields, then intrinsic size) in view order, then the
    /// constraint entries in document order.
    mutating func compile(_ document: Document, activation: ActivationContext) -> [CompiledConstraint] {
        var out: [CompiledConstraint] = []
        out.reserveCapacity(document.views.count * 4 + document.constraints.count * 2)
        var viewsByID: [String: View] = [:]
        viewsByID.reserveCapacity(document.views.count)
        for view in document.views { viewsByID[view.id] = view }
        for view in document.views {
            let v = variables(for: view.id)
            func fixed(_ field: CompiledConstraint.ViewField, _ terms: [Term], _ value: Double,
                       priority: Double = Priority.required, root: Bool = false) {
                out.append(CompiledConstraint(key: .view(view.id, field), terms: AnchorTranslation.canonical(terms),
                                              constant: -value, relation: .equal, priority: priority,
                                              active: true, isRootSize: root))
            }
            if let parentID = view.parent {
                let p = variables(for: parentID)
                if let x = view.frame.x { fixed(.x, [Term(v.minX), Term(p.minX, -1)], x) }
                if let y = view.frame.y { fixed(.y, [Term(v.minY), Term(p.minY, -1)], y) }
                if let w = view.frame.width { fixed(.width, [Term(v.width)], w) }
                if let h = view.frame.height { fixed(.height, [Term(v.height)], h) }
            } else {
                fixed(.x, [Term(v.minX)], view.frame.x ?? 0)
                fixed(.y, [Term(v.minY)], view.frame.y ?? 0)
                // A given root size is an input (changed later by edit suggestion); an omitted one
                // is the fitting size: pulled to its smallest value at priority 50.
                if let w = view.frame.width { fixed(.width, [Term(v.width)], w, root: true) }
                else { fixed(.width, [Term(v.width)], 0, priority: Priority.fittingSize) }
                if let h = view.frame.height { fixed(.height, [Term(v.height)], h, root: true) }
                else { fixed(.height, [Term(v.height)], 0, priority: Priority.fittingSize) }
            }
            if let w = view.intrinsicWidth {
                out.append(CompiledConstraint(key: .view(view.id, .widthMax), terms: [Term(v.width)], constant: -w,
                                              relation: .lessOrEqual, priority: view.hugging.horizontal, active: true))
                out.append(CompiledConstraint(key: .view(view.id, .widthMin), terms: [Term(v.width)], constant: -w,
                                              relation: .greaterOrEqual, priority: view.compressionResistance.horizontal,
                                              active: true))
            }
            if let h = view.intrinsicHeight {
                out.append(CompiledConstraint(key: .view(view.id, .heightMax), terms: [Term(v.height)], constant: -h,
                                              relation: .lessOrEqual, priority: view.hugging.vertical, active: true))
                out.append(CompiledConstraint(key: .view(view.id, .heightMin), terms: [Term(v.height)], constant: -h,
                                              relation: .greaterOrEqual, priority: view.compressionResistance.vertical,
                                              active: true))
            }
        }
        for entry in document.constraints {
            for (index, item) in entry.items.enumerated() {
                var terms: [Term] = []
                terms.reserveCapacity(item.terms.count * 2)
                var constant = item.constant
                for t in item.terms {
                    guard let view = viewsByID[t.anchor.view] else { continue }
                    AnchorTranslation.accumulate(t.anchor.attribute, of: view, variables(for: view.id),
                                                 direction: document.direction, coefficient: t.coefficient,
                                                 into: &terms, constant: &constant)
                }
                out.append(CompiledConstraint(key: .entry(entry.id, index), terms: AnchorTranslation.canonical(terms),
                                              constant: constant, relation: item.relation.solverRelation,
                                              priority: item.priority, active: activation.isActive(entry, item)))
            }
        }
        return out
    }
}

extension LayoutModel.Relation {
    var solverRelation: Cassowary.Relation {
        switch self {
        case .equal: return .equal
        case .lessOrEqual: return .lessOrEqual
        case .greaterOrEqual: return .greaterOrEqual
        }
    }
}
