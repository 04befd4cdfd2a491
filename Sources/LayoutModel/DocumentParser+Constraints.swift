import JSON

/// Parses the document's `constraints` (object keyed by id, or array whose entries may carry `id`;
/// entries without one get `#<index>`), dispatching each entry to the compiler of its form.
struct ConstraintsParser {
    /// Fields every object form may carry.
    static let commonFields: Set<String> = ["priority", "activation", "active", "group", "identifier", "dialect", "id"]
    /// The key that selects a form, and the form's own fields.
    static let formFields: [String: Set<String>] = [
        "first": ["first", "relation", "second", "multiplier", "constant"],
        "expr": ["expr"],
        "format": ["format", "metrics", "options"],
        "align": ["align", "views"],
        "distribute": ["distribute", "views", "spacing"],
    ]

    let limits: DocumentLimits
    let views: [String: View]
    let dialect: Dialect
    /// False when the view tree is broken (a parent cycle or unknown parent): entries' own fields are
    /// still validated, but nothing is compiled against the tree.
    let compile: Bool
    var problems: [Problem] = []
    var entries: [ConstraintEntry] = []

    init(limits: DocumentLimits, views: [String: View], dialect: Dialect, compile: Bool) {
        self.limits = limits; self.views = views; self.dialect = dialect; self.compile = compile
    }

    mutating func parse(_ value: JSONValue, at base: String) {
        // (id, pointer of the entry, pointer of its id, entry value, keyed form, problems of the id)
        var raws: [(id: String?, at: String, idAt: String, value: JSONValue, keyed: Bool, idProblems: [Problem])] = []
        switch value {
        case .object(let o):
            guard checkCount(o.count, at: base) else { return }
            for (key, v) in o.entries {
                let p = docPointer(base, key)
                raws.append((key, p, p, v, true, []))
            }
        case .array(let a):
            guard checkCount(a.count, at: base) else { return }
            for (i, v) in a.enumerated() {
                let p = docPointer(base, i)
                switch v["id"] {
                case nil: raws.append(("#\(i)", p, p, v, false, []))
                case .string(let s)?: raws.append((s, p, docPointer(p, "id"), v, false, []))
                case let other?:
                    raws.append((nil, p, p, v, false, [Problem(docPointer(p, "id"), .invalidType,
                                                               "expected a constraint id, got \(other.typeName)")]))
                }
            }
        default:
            problems.append(Problem(base, .invalidType,
                                    "expected an object keyed by constraint id, or an array of constraints, got \(value.typeName)"))
            return
        }
        var seen = Set<String>()
        for raw in raws {
            var found = raw.idProblems
            if let id = raw.id {
                if let why = IDRules.problem(with: id, what: "a constraint") {
                    found.append(Problem(raw.idAt, .invalidID, why))
                } else if !seen.insert(id).inserted {
                    found.append(Problem(raw.idAt, .duplicateID, "constraint id '\(id)' is used by an earlier constraint"))
                }
            }
            let (entry, more) = parseEntry(raw.value, id: raw.id ?? "", at: raw.at, keyed: raw.keyed)
            found += more
            if let o = raw.value.objectValue { found = inFieldOrder(found, of: o, at: raw.at) }
            problems += found
            if raw.id != nil, let entry, found.isEmpty { entries.append(entry) }
        }
    }

    private mutating func checkCount(_ count: Int, at base: String) -> Bool {
        guard count > limits.maxConstraints else { return true }
        problems.append(Problem(base, .tooManyConstraints,
                                "\(count) constraints; this daemon accepts at most \(limits.maxConstraints)"))
        return false
    }

    /// Validates and compiles one entry; the caller puts the problems in field order.
    func parseEntry(_ value: JSONValue, id: String, at p: String, keyed: Bool) -> (ConstraintEntry?, [Problem]) {
        let context = CompileContext(views: views, dialect: dialect, priorityField: nil, maxMagnitude: limits.maxMagnitude)
        switch value {
        case .string(let text):
            let result = compile ? ExpressionCompiler.compile(text, context: context) : .success([])
            let (items, found) = finish(result, context: context, prefix: p)
            return (ConstraintEntry(id: id, items: items), found)
        case .object(let o):
            return parseObject(o, id: id, at: p, keyed: keyed, context: context)
        default:
            return (nil, [Problem(p, .invalidType,
                                  "a constraint is an expression string or an object, got \(value.typeName)")])
        }
    }

    private func parseObject(_ o: JSONObject, id: String, at p: String, keyed: Bool,
                             context base: CompileContext) -> (ConstraintEntry?, [Problem]) {
        var reader = FieldReader(maxMagnitude: limits.maxMagnitude)
        var entry = ConstraintEntry(id: id, items: [])
        var context = base
        let form = o.keys.first(where: { Self.formFields[$0] != nil })
        if let v = o["dialect"] {
            context.dialect = reader.word(v, at: docPointer(p, "dialect"), what: "dialect",
                                          choices: Dialect.allCases.map { ($0.rawValue, $0) }) ?? dialect
        }
        for (key, value) in o.entries {
            let at = docPointer(p, key)
            switch key {
            case "priority": context.priorityField = reader.priority(value, at: at)
            case "activation":
                switch ActivationParser.parse(value, pointer: at, views: views) {
                case .success(let a): entry.activation = a
                case .failure(let e): reader.problems += e.problems
                }
            case "active": entry.active = reader.bool(value, at: at)
            case "group": entry.group = reader.string(value, at: at)
            case "identifier": entry.identifier = reader.string(value, at: at)
            case "dialect": break
            case "id":
                if keyed, let s = reader.string(value, at: at), s != id {
                    reader.report(at, .invalidValue, "\"id\" is '\(s)' but the constraint's key is '\(id)'")
                }
            default:
                guard let form else { continue }  // reported once below as unknown_constraint_form
                if !Self.formFields[form]!.contains(key) {
                    let own = Self.formFields[form]!.union(Self.commonFields).subtracting(keyed ? ["id"] : [])
                    reader.report(at, .unknownField, "'\(key)' is not a field of a '\(form)' constraint; allowed: "
                                  + own.sorted().joined(separator: ", "))
                }
            }
        }
        var found = reader.problems
        if let form {
            let (items, more) = compileForm(form, o, at: p, context: context, reader: &reader)
            entry.items = items
            found = reader.problems + more
        } else {
            found.append(Problem(p, .unknownConstraintForm,
                "a constraint object needs one of \"first\" (object form), \"expr\" (expression), \"format\" "
                + "(visual format), \"align\" or \"distribute\" (helpers); or write it as an expression string"))
        }
        return (entry, found)
    }

    private func compileForm(_ form: String, _ o: JSONObject, at p: String, context: CompileContext,
                             reader: inout FieldReader) -> ([LinearConstraint], [Problem]) {
        switch form {
        case "first":
            guard compile else { return ([], []) }
            return finish(ObjectFormCompiler.compile(o, context: context), context: context, prefix: p)
        case "expr":
            guard let text = reader.string(o["expr"]!, at: docPointer(p, "expr")), compile else { return ([], []) }
            // Problems come back relative to the entry (`/expr`, or `/priority` for a priority given twice).
            return finish(ExpressionCompiler.compile(text, context: context, pointer: "/expr"), context: context,
                          prefix: p)
        case "format":
            let text = reader.string(o["format"]!, at: docPointer(p, "format"))
            let metrics = o["metrics"].flatMap { reader.object($0, at: docPointer(p, "metrics")) }
            let options = o["options"].flatMap { v -> [JSONValue]? in
                if case .array(let a) = v { return a }
                reader.typeMismatch(v, expected: "an array of option names", at: docPointer(p, "options"))
                return nil
            }
            let usable = (o["metrics"] == nil || metrics != nil) && (o["options"] == nil || options != nil)
            guard let text, compile, usable else { return ([], []) }
            // Dispatches to VisuallyCompiler for `H(...)` / `V(...)`, else Apple's VFL.
            let result = VisualFormatCompiler.compileEntry(format: text, metrics: metrics, options: options,
                                                           context: context)
            return finish(result, context: context, prefix: p)
        default:  // align, distribute
            let result = HelperCompiler.compile(o, context: context)
            if !compile, case .failure(let e) = result { return ([], e.map { Self.absolute($0, prefix: p) }) }
            guard compile else { return ([], []) }
            return finish(result, context: context, prefix: p)
        }
    }

    /// Applies `ConstraintRules` to every item of a compiled entry; prefixes problems with the entry's
    /// pointer and removes repeats (a composite breaks a rule once per component).
    private func finish(_ result: Result<[LinearConstraint], [EntryProblem]>, context: CompileContext,
                        prefix: String) -> ([LinearConstraint], [Problem]) {
        switch result {
        case .failure(let e):
            return ([], Self.unique(e.map { Self.absolute($0, prefix: prefix) }))
        case .success(let items):
            let found = items.flatMap { ConstraintRules.check($0, context: context) }
            return (items, Self.unique(found.map { Self.absolute($0, prefix: prefix) }))
        }
    }

    static func absolute(_ e: EntryProblem, prefix: String) -> Problem {
        Problem(pointer: prefix + e.pointer, code: e.code, detail: e.detail)
    }

    static func unique(_ problems: [Problem]) -> [Problem] {
        var seen = Set<Problem>()
        return problems.filter { seen.insert($0).inserted }
    }
}
