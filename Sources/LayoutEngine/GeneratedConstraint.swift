import LayoutModel

/// A constraint the engine makes for the document rather than one of its constraint entries: a
/// view's frame field, its intrinsic size, a stack view's rule. Its `note` says in words where it
/// comes from, for explanations (`label: intrinsic height, compression resistance 750`).
///
/// Extending it: a new kind of generated constraint (a `CompiledConstraint.Key` or a `ViewField`)
/// adds a case to the switches below, which are exhaustive so that it cannot be forgotten.
enum GeneratedConstraint {
    case viewField(View, CompiledConstraint.ViewField)
    case stack(stack: String, rule: String)
    case text(view: String, field: CompiledConstraint.TextField)

    /// The generated constraint `key` names (nil for a constraint entry's item).
    init?(_ key: CompiledConstraint.Key, view: (String) -> View?) {
        switch key {
        case .entry: return nil
        case .view(let id, let field):
            guard let v = view(id) else { return nil }
            self = .viewField(v, field)
        case .stack(let id, let name):
            self = .stack(stack: id, rule: name)
        case .text(let id, let field):
            self = .text(view: id, field: field)
        }
    }

    /// Where the constraint comes from, in words.
    var note: String {
        switch self {
        case .stack(let stack, let rule):
            return "\(stack)/\(rule): stack view rule"
        case .viewField(let view, let field):
            return "\(view.id): " + field.note(of: view)
        case .text(let view, let field):
            switch field {
            case .widthMax, .widthMin: return "\(view): text width, \(field == .widthMax ? "hugging" : "compression resistance")"
            case .heightMax, .heightMin: return "\(view): text height, \(field == .heightMax ? "hugging" : "compression resistance")"
            }
        }
    }
}

extension CompiledConstraint.ViewField {
    /// What the view's field makes, in words (see `GeneratedConstraint.note`).
    func note(of view: View) -> String {
        func level(_ p: Double) -> String { ConstraintRenderer.number(p) }
        switch self {
        case .x, .y:
            return view.isRoot ? "the root's frame (\(rawValue))" : rawValue + ", from the parent"
        case .width:
            guard view.isRoot else { return rawValue }
            return view.frame.width == nil ? "the root's fitting width (no frame.width: as small as it can be)"
                : "the root's frame (frame.width)"
        case .height:
            guard view.isRoot else { return rawValue }
            return view.frame.height == nil ? "the root's fitting height (no frame.height: as small as it can be)"
                : "the root's frame (frame.height)"
        case .widthMax: return "intrinsic width, hugging \(level(view.hugging.horizontal))"
        case .widthMin: return "intrinsic width, compression resistance \(level(view.compressionResistance.horizontal))"
        case .heightMax: return "intrinsic height, hugging \(level(view.hugging.vertical))"
        case .heightMin: return "intrinsic height, compression resistance \(level(view.compressionResistance.vertical))"
        }
    }
}
