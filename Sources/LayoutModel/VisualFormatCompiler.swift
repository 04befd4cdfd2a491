import JSON

/// Apple's Visual Format Language (spec section 4, item 3): `{ "format", "metrics", "options" }`.
///
/// Generated constraints follow NSLayoutConstraint's: `[a]-8-[b]` is `b.leading == a.trailing + 8`
/// (first item b), `|-8-[a]` is `a.leading == superview.leading + 8`, `[a]-8-|` is
/// `superview.trailing == a.trailing + 8` (first item the superview), `[a(>=50@750)]` is
/// `a.width >= 50` at 750. A bare `-` is 8 between siblings and 20 to the superview edge.
///
/// Decisions where Apple's documentation and the spec are silent:
/// - Spaces (and tabs, newlines) between tokens are ignored: `H: |-8-[a] - [b]-|` is accepted.
/// - `[name]` takes any view id (letters, digits, `_`, `-`, `#`); a metric in a bare connection
///   (`-pad-`) is a C identifier, as in Apple's grammar.
/// - A predicate object is read, in this order, as a number literal (an optional sign is allowed
///   inside parentheses, as strtod reads it: `[a(>=-5)]`, `-(-4)-`), a metric, a view. So a
///   metric shadows a view of the same name, and a view whose id is a number can't be named there.
/// - A name that is neither a metric nor a view: `unknown_view` in a view's size predicate (the
///   detail says it is neither), `unknown_metric` in a connection or after `@`. A view name in a
///   connection predicate (`-(==b)-`) is a `syntax` problem: spacing is a number.
/// - A bare connection may carry a relation without parentheses, `[a]->=8-|`, as the spec's own
///   example does; Apple's grammar would need `-(>=8)-`.
/// - `@priority` is a number, a metric (its value) or a priority name of the spec, looked up in that
///   order; a value outside (0, 1000] is `invalid_priority`. Apple needs parentheses for a priority
///   in a connection; `-20@750-` is accepted too.
/// - A `@` anywhere in the format together with the entry's `priority` field is one
///   `duplicate_priority` problem, at the first `@`. Alignment constraints get the default priority.
/// - Order of the generated items: opening-edge gaps, then per view the gaps into it, its size
///   predicates, its `alignAll…` constraints with the previous view, then closing-edge gaps. Within
///   a predicate list, the order written.
/// - `directionRightToLeft` makes the chain run right to left with physical attributes. Every gap
///   constraint is written with the item of larger x first, so its constant is the gap as written:
///   `|-8-[a]-4-[b]` is `superview.right == a.right + 8`, `a.left == b.right + 4` (first items
///   superview and a), and `[b]-8-|` is `b.left == superview.left + 8`. Direction options are
///   ignored in `V:` formats; two different direction options are `invalid_option`.
/// - Options may be written with Swift's leading dot (`.alignAllTop`); `alignAllBaseline` is
///   Apple's alias of `alignAllLastBaseline`. Repeated options count once.
/// - `|` is the common parent of the chain's views (spec); a root view or views of different
///   parents next to a `|` are `no_superview`. Without `|`, views may have any parents.
/// - A view may appear twice in a chain; standard spacing is the same for views and guides.
/// - Every metric is checked, used or not: a non-number is `invalid_metric`, a number that is not
///   finite or exceeds the limit is `number_out_of_range`, both at `/metrics/name`.
/// - An `alignAll…` option along the format's own axis (`alignAllLeading` in `H:`) is
///   `invalid_option` at `/options/i`, as Apple raises for it.
/// - Problems: every `metrics` and `options` problem, then either the first syntax error or every
///   unknown name, bad number and bad priority of the format. Nothing is generated when any exists.
public enum VisualFormatCompiler {
    /// Standard spacing between sibling views (a bare `-`).
    public static let standardSiblingSpacing = 8.0
    /// Standard spacing between a view and its superview's edge (`|-[a]`).
    public static let standardSuperviewSpacing = 20.0

    /// Expands one visual format entry into constraints.
    /// - Parameters:
    ///   - format: Apple's visual format string (`"H:|-8-[label]->=8-|"`).
    ///   - metrics: the entry's `metrics` object (names to numbers), if any.
    ///   - options: the entry's `options` array, if any.
    /// - Returns: the constraints in generation order, or every problem found (pointers `/format`,
    ///   `/metrics/name`, `/options/i`).
    public static func compile(format: String, metrics: JSONObject?, options: [JSONValue]?,
                               context: CompileContext) -> Result<[LinearConstraint], [EntryProblem]> {
        var problems: [EntryProblem] = []
        let (metricTable, metricProblems) = VisualFormatMetrics.parse(metrics, context: context)
        problems += metricProblems
        let vertical = format.first(where: { !$0.isWhitespace }) == "V"
        let (opts, optionProblems) = VisualFormatOptions.parse(options, vertical: vertical)
        problems += optionProblems

        let tree: VisualFormatSyntax
        switch VisualFormatParser.parse(format) {
        case .failure(let p): return .failure(problems + [p])
        case .success(let t): tree = t
        }
        var resolver = VisualFormatResolver(metrics: metricTable, context: context)
        let chain = resolver.chain(tree)
        problems += resolver.problems
        var superview: String?
        if tree.opening != nil || tree.closing != nil {
            switch commonSuperview(of: tree.views, context: context) {
            case .success(let sv): superview = sv
            case .failure(let p): problems.append(p)
            }
        }
        guard problems.isEmpty else { return .failure(problems) }
        return .success(chain.emit(direction: opts.direction, openingSuperview: superview,
                                   closingSuperview: superview, alignments: opts.alignments,
                                   alignmentPriority: context.defaultPriority))
    }

    /// Dispatches on the format's shape: the Visually form (`H(…)`, `V(…)`) or Apple's VFL.
    /// The Visually form takes neither `metrics` nor `options` (a problem at `/metrics`, `/options`).
    public static func compileEntry(format: String, metrics: JSONObject?, options: [JSONValue]?,
                                    context: CompileContext) -> Result<[LinearConstraint], [EntryProblem]> {
        guard VisuallyCompiler.isVisuallyForm(format) else {
            return compile(format: format, metrics: metrics, options: options, context: context)
        }
        var problems: [EntryProblem] = []
        if metrics != nil {
            problems.append(EntryProblem("/metrics", .invalidMetric, "metrics apply to Apple's visual format only, not to the Visually form"))
        }
        if options != nil {
            problems.append(EntryProblem("/options", .invalidOption, "options apply to Apple's visual format only, not to the Visually form"))
        }
        switch VisuallyCompiler.compile(format: format, context: context) {
        case .success(let items): return problems.isEmpty ? .success(items) : .failure(problems)
        case .failure(let more): return .failure(problems + more)
        }
    }

    /// The one parent of every known view in the chain, for `|`.
    private static func commonSuperview(of views: [VisualFormatSyntax.ViewNode],
                                        context: CompileContext) -> Result<String, EntryProblem> {
        var found: (parent: String, view: String)?
        for node in views {
            guard let view = context.views[node.name.text] else { continue }  // reported as unknown_view
            guard let parent = view.parent else {
                return .failure(VisualFormatProblems.at(.noSuperview, "'|' stands for the superview, but view '\(view.id)' (column \(node.name.column)) is a root"))
            }
            if let found, found.parent != parent {
                return .failure(VisualFormatProblems.at(.noSuperview, "'|' needs one superview, but '\(found.view)' is in '\(found.parent)' and '\(view.id)' is in '\(parent)'"))
            }
            if found == nil { found = (parent, view.id) }
        }
        // No known view: every one is already an unknown_view problem.
        return .success(found?.parent ?? "")
    }
}
