/// What an attribute name denotes: one attribute, or a composite of several.
public enum AnchorKind: Equatable, Hashable, Sendable, CustomStringConvertible {
    case single(Attribute)
    case composite(Composite)

    /// The attributes this kind expands to (one for a single attribute).
    public var components: [Attribute] {
        switch self {
        case .single(let a): return [a]
        case .composite(let c): return c.components
        }
    }

    public var composite: Composite? {
        if case .composite(let c) = self { return c }
        return nil
    }

    /// The canonical spelling (`lastBaseline`, `edges`).
    public var description: String {
        switch self {
        case .single(let a): return a.rawValue
        case .composite(let c): return c.rawValue
        }
    }
}

/// An anchor as written, `viewId.attribute`, with the attribute resolved.
public struct AnchorReference: Equatable, Hashable, Sendable, CustomStringConvertible {
    public var view: String
    public var kind: AnchorKind
    public init(view: String, kind: AnchorKind) { self.view = view; self.kind = kind }

    /// One `Anchor` per component.
    public var anchors: [Anchor] { kind.components.map { Anchor(view, $0) } }
    public var description: String { "\(view).\(kind)" }
}

/// The attribute names of spec section 3, with the aliases of the DSLs the format comes from:
/// a trailing `Anchor` (`leadingAnchor`, `edgeAnchor`, `sizeAnchor`), a leading `m_` (Mortar:
/// `m_top`, `m_cornerTL`), `baseline` for `lastBaseline`, and singular `...WithinMargin` forms.
/// Names are case-sensitive.
public enum AnchorVocabulary {
    /// Canonical and alias names (after removing `m_` and `Anchor`) to kinds.
    private static let table: [String: AnchorKind] = {
        var t: [String: AnchorKind] = [:]
        for a in Attribute.allCases { t[a.rawValue] = .single(a) }
        for c in Composite.allCases { t[c.rawValue] = .composite(c) }
        t["baseline"] = .single(.lastBaseline)
        t["centerXWithinMargin"] = .single(.centerXWithinMargins)
        t["centerYWithinMargin"] = .single(.centerYWithinMargins)
        t["edge"] = .composite(.edges)                       // edgeAnchor
        t["edgesWithinMargin"] = .composite(.edgesWithinMargins)
        t["edgeWithinMargins"] = .composite(.edgesWithinMargins)
        t["edgeWithinMargin"] = .composite(.edgesWithinMargins)
        t["centerWithinMargin"] = .composite(.centerWithinMargins)
        return t
    }()

    /// Resolves an attribute name (canonical or alias).
    /// - Returns: nil for a name the vocabulary does not know.
    public static func resolve(_ name: String) -> AnchorKind? {
        if let k = table[name] { return k }
        var base = Substring(name)
        if base.hasPrefix("m_") { base = base.dropFirst(2) }
        if base.hasSuffix("Anchor") { base = base.dropLast(6) }
        guard !base.isEmpty, base.count != name.count else { return nil }
        return table[String(base)]
    }

    /// The attribute name nearest to a misspelt one (`centerx` → `centerX`), without the
    /// `m_`/`Anchor` affixes.
    public static func suggestion(for name: String) -> String? {
        var base = Substring(name)
        if base.hasPrefix("m_") { base = base.dropFirst(2) }
        if base.hasSuffix("Anchor"), base.count > 6 { base = base.dropLast(6) }
        return Suggestion.nearest(String(base), among: baseNames)
    }

    /// Every name `resolve` accepts without the `m_`/`Anchor` affixes (sorted; for messages).
    public static var baseNames: [String] { table.keys.sorted() }

    /// Parses `viewId.attribute` (view ids never contain `.`).
    /// - Returns: the view id and attribute name, or nil when the text is not of that shape.
    public static func split(_ text: String) -> (view: String, attribute: String)? {
        guard let dot = text.firstIndex(of: ".") else { return nil }
        let view = String(text[..<dot]), attr = String(text[text.index(after: dot)...])
        guard !view.isEmpty, !attr.isEmpty, !attr.contains(".") else { return nil }
        return (view, attr)
    }

    /// Why `reference(_:views:)` failed.
    public enum AnchorError: Error, Equatable, Sendable {
        /// Not of the form `viewId.attribute`.
        case malformed
        case unknownView(String)
        case unknownAttribute(String)
    }

    /// Parses and resolves `viewId.attribute`, checking the view against `views`.
    public static func reference(_ text: String, views: ViewLookup) -> Result<AnchorReference, AnchorError> {
        guard let (view, attr) = split(text) else { return .failure(.malformed) }
        guard views[view] != nil else { return .failure(.unknownView(view)) }
        guard let kind = resolve(attr) else { return .failure(.unknownAttribute(attr)) }
        return .success(AnchorReference(view: view, kind: kind))
    }
}
