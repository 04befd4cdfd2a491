/// Resolves the names and numbers of a parsed visual format into a `VisualChain`, collecting
/// every problem (unknown views and metrics, numbers out of range, bad priorities).
struct VisualFormatResolver {
    let metrics: VisualFormatMetrics
    let context: CompileContext
    private(set) var problems: [EntryProblem] = []

    init(metrics: VisualFormatMetrics, context: CompileContext) {
        self.metrics = metrics
        self.context = context
    }

    private typealias Syntax = VisualFormatSyntax

    mutating func chain(_ tree: VisualFormatSyntax) -> VisualChain {
        checkDuplicatePriority(tree)
        let edge = VisualFormatCompiler.standardSuperviewSpacing
        let sibling = VisualFormatCompiler.standardSiblingSpacing
        var items: [VisualChain.Item] = []
        for node in tree.views {
            if context.views[node.name.text] == nil {
                problems.append(VisualFormatProblems.at(.unknownView, "unknown view '\(node.name.text)' at column \(node.name.column)",
                                                        suggestion: context.views.suggestion(for: node.name.text)))
            }
            items.append(VisualChain.Item(view: node.name.text, sizes: node.predicates.compactMap { size($0) }))
        }
        return VisualChain(vertical: tree.vertical,
                           opening: tree.opening.map { gaps($0, standard: edge) },
                           items: items,
                           gaps: tree.connections.map { gaps($0, standard: sibling) },
                           closing: tree.closing.map { gaps($0, standard: edge) })
    }

    private mutating func checkDuplicatePriority(_ tree: VisualFormatSyntax) {
        guard let field = context.priorityField else { return }
        var predicates = tree.views.flatMap(\.predicates)
        for c in [tree.opening, tree.closing].compactMap({ $0 }) + tree.connections {
            if case .predicates(let list) = c { predicates += list }
        }
        let columns = predicates.compactMap { $0.priority?.column }
        guard let first = columns.min() else { return }
        problems.append(VisualFormatProblems.at(.duplicatePriority,
            "the format gives a priority at column \(first) and the entry's priority field gives \(VisualFormatProblems.formatNumber(field)); give one"))
    }

    private mutating func gaps(_ connection: Syntax.Connection, standard: Double) -> [VisualChain.Gap] {
        switch connection {
        case .flush:
            return [VisualChain.Gap(relation: .equal, constant: 0, priority: context.defaultPriority)]
        case .standard:
            return [VisualChain.Gap(relation: .equal, constant: standard, priority: context.defaultPriority)]
        case .predicates(let list):
            return list.compactMap { p in
                let priority = self.priority(p.priority)
                guard let value = spacing(p.object) else { return nil }
                return VisualChain.Gap(relation: p.relation, constant: value, priority: priority)
            }
        }
    }

    /// A connection's object: a number or a metric.
    private mutating func spacing(_ token: Syntax.Token) -> Double? {
        if let v = number(token) { return v }
        if VisualFormatLexicon.isNumberLiteral(token.text) { return nil }
        switch metrics.lookup(token.text) {
        case .value(let v): return v
        case .invalid: return nil
        case .missing:
            if context.views[token.text] != nil {
                problems.append(VisualFormatProblems.syntax(
                    "expected a number or a metric at column \(token.column), found the view '\(token.text)' (spacing can't name a view)"))
            } else {
                problems.append(VisualFormatProblems.at(.unknownMetric, "unknown metric '\(token.text)' at column \(token.column)"))
            }
            return nil
        }
    }

    /// A view's size predicate: a constant (number or metric) or another view's same dimension.
    private mutating func size(_ p: Syntax.Predicate) -> VisualChain.Size? {
        let priority = self.priority(p.priority)
        let target: VisualChain.Size.Target
        if let v = number(p.object) {
            target = .constant(v)
        } else if VisualFormatLexicon.isNumberLiteral(p.object.text) {
            return nil
        } else {
            switch metrics.lookup(p.object.text) {
            case .value(let v): target = .constant(v)
            case .invalid: return nil
            case .missing:
                guard context.views[p.object.text] != nil else {
                    problems.append(VisualFormatProblems.at(.unknownView,
                        "'\(p.object.text)' at column \(p.object.column) is neither a metric nor a view",
                        suggestion: context.views.suggestion(for: p.object.text)))
                    return nil
                }
                target = .dimension(of: p.object.text, multiplier: 1)
            }
        }
        return VisualChain.Size(relation: p.relation, target: target, priority: priority)
    }

    /// A number literal's value (nil, with a problem when out of range, or nil when not a literal).
    private mutating func number(_ token: Syntax.Token) -> Double? {
        guard let v = VisualFormatLexicon.number(token.text) else { return nil }
        if let p = VisualFormatProblems.checkRange(v, text: token.text, column: token.column, context: context) {
            problems.append(p)
            return nil
        }
        return v
    }

    /// `@priority`: a number, a metric or a priority name; the default when absent or invalid.
    private mutating func priority(_ token: Syntax.Token?) -> Double {
        guard let token else { return context.defaultPriority }
        let text = token.text
        var value: Double?
        if VisualFormatLexicon.isNumberLiteral(text) {
            value = Double(text)
        } else {
            switch metrics.lookup(text) {
            case .value(let v): value = v
            case .invalid: return context.defaultPriority
            case .missing:
                guard let named = Priority.names[text] else {
                    problems.append(VisualFormatProblems.at(.unknownMetric,
                        "'\(text)' after '@' at column \(token.column) is neither a metric nor a priority name",
                        suggestion: Priority.suggestion(for: text)))
                    return context.defaultPriority
                }
                value = named
            }
        }
        guard let v = value, Priority.isValid(v) else {
            problems.append(VisualFormatProblems.at(.invalidPriority,
                "priority '\(text)' at column \(token.column) must be in (0, 1000]\(value.map { ", got \(VisualFormatProblems.formatNumber($0))" } ?? "")"))
            return context.defaultPriority
        }
        return v
    }
}
