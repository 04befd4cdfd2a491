/// The Visually form of a visual format (spec section 4, item 3), after lukkas/Visually's operators:
/// `H(|-8-label->=8-|)`, `V(label-(10 ~ 800)-button[44])`, `H(a[50%]-b[>=44 ~ 750])`.
///
/// `|-` / `-|` pin to the superview's leading and trailing edges (top and bottom in `V`); between
/// items `-n-` is `== n`, `->=n-` `>= n`, `-<=n-` `<= n`, `->=-` `>= 0`, `-<=-` `<= 0`, and a bare
/// `-` is `== 0` (not Apple's standard spacing). The constraints have NSLayoutConstraint's shape,
/// as Visually makes them: `a-8-b` is `b.leading == a.trailing + 8`, `|-8-a` is
/// `a.leading == superview.leading + 8`, `a->=8-|` is `superview.trailing >= a.trailing + 8`.
/// `v[n]`, `v[>=n]`, `v[<=n]` are width (H) or height (V) constraints; `v[n%]` is
/// `v.width == n/100 · superview.width` (height in V), the superview's whole size, margins ignored.
///
/// Decisions where Visually and the spec are silent:
/// - `|` (and the superview of `n%`) is the adjacent view's own parent, as Visually takes
///   `view.superview`: the opening `|` is the first view's parent, the closing `|` the last view's.
///   A root there is `no_superview`.
/// - Names are `[A-Za-z_#][A-Za-z0-9_#]*`; a view id holding `-` or starting with a digit is
///   written in backquotes, as Swift escapes identifiers: ``H(|-`top-bar`-|)``.
/// - A priority after `~` is a number in (0, 1000] or a priority name of the spec, optionally with
///   Swift's qualification (`~ .defaultHigh`, `~ UILayoutPriority.defaultHigh`); anything else is
///   `invalid_priority`. Priority arithmetic (`.defaultHigh + 1`) is not accepted. A `~` together with
///   the entry's `priority` field is one `duplicate_priority` problem, at the first `~`.
/// - `-n~p-` needs no parentheses (Swift's precedence allows it); a parenthesized parameter may hold
///   a sign and a relation: `-(-4)-`, `-(>=8 ~ 500)-`, `v[(44 ~ 750)]`. `-==n-` is accepted as `-n-`.
/// - Spaces between tokens are ignored. An item takes at most one size subscript.
/// - Order of the generated items: opening gap, then per view the gap into it and its size, then the
///   closing gap (textual order; Visually's own array order differs only in where sizes fall).
public enum VisuallyCompiler {
    /// Whether `format` is in the Visually form (`H(` or `V(` after optional spaces), rather than
    /// Apple's visual format.
    public static func isVisuallyForm(_ format: String) -> Bool {
        var s = VisualFormatScanner(format)
        s.skipSpaces()
        guard let c = s.peek(), c == "H" || c == "V" else { return false }
        s.pos += 1
        s.skipSpaces()
        return s.peek() == "("
    }

    /// Expands one Visually-form format into constraints.
    /// - Returns: the constraints in generation order, or every problem found (pointer `/format`).
    public static func compile(format: String, context: CompileContext) -> Result<[LinearConstraint], [EntryProblem]> {
        var parser = VisuallyParser(format, context: context)
        let tree: VisuallySyntax
        do {
            tree = try parser.parse()
        } catch {
            return .failure(parser.problems + [error])
        }
        var problems = parser.problems
        if let col = tree.firstPriorityColumn, let field = context.priorityField {
            problems.append(VisualFormatProblems.at(.duplicatePriority,
                "the format gives a priority at column \(col) and the entry's priority field gives \(VisualFormatProblems.formatNumber(field)); give one"))
        }
        for item in tree.items where context.views[item.name] == nil {
            problems.append(VisualFormatProblems.at(.unknownView, "unknown view '\(item.name)' at column \(item.column)",
                                                    suggestion: context.views.suggestion(for: item.name)))
        }

        /// The parent of a known view, or a problem when it is a root (unknown views: already reported).
        func superview(of item: VisuallySyntax.Item, for what: String) -> String? {
            guard let view = context.views[item.name] else { return nil }
            guard let parent = view.parent else {
                problems.append(VisualFormatProblems.at(.noSuperview, "\(what) needs the superview of '\(item.name)' (column \(item.column)), which is a root"))
                return nil
            }
            return parent
        }

        let opening = tree.opening == nil ? nil : superview(of: tree.items[0], for: "the opening '|'")
        let closing = tree.closing == nil ? nil : superview(of: tree.items[tree.items.count - 1], for: "the closing '|'")
        let priority = { (p: Double?) in p ?? context.defaultPriority }
        let gap = { (g: VisuallySyntax.Gap) in
            VisualChain.Gap(relation: g.relation, constant: g.constant, priority: priority(g.priority))
        }
        var items: [VisualChain.Item] = []
        for item in tree.items {
            var sizes: [VisualChain.Size] = []
            for size in item.sizes {
                if size.percent {
                    guard let parent = superview(of: item, for: "'\(VisualFormatProblems.formatNumber(size.value))%'") else { continue }
                    sizes.append(.init(relation: size.relation, target: .dimension(of: parent, multiplier: size.value / 100),
                                       priority: priority(size.priority)))
                } else {
                    sizes.append(.init(relation: size.relation, target: .constant(size.value), priority: priority(size.priority)))
                }
            }
            items.append(.init(view: item.name, sizes: sizes))
        }
        guard problems.isEmpty else { return .failure(problems) }
        let chain = VisualChain(vertical: tree.vertical, opening: tree.opening.map { [gap($0)] }, items: items,
                                gaps: tree.gaps.map { [gap($0)] }, closing: tree.closing.map { [gap($0)] })
        return .success(chain.emit(direction: .leadingToTrailing, openingSuperview: opening,
                                   closingSuperview: closing, alignments: [], alignmentPriority: context.defaultPriority))
    }
}
