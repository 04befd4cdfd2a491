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
    let views: ViewLookup
    let dialect: Dialect
    /// False when the view tree is broken (a parent cycle or unknown parent): entries' own fields are
    /// still validated, but nothing is compiled against the tree.
    let compile: Bool
    /// The context every entry starts from (made once per document).
    let baseContext: CompileContext
    var problems: [Problem] = []
    var entries: [ConstraintEntry] = []

    /// - Parameter table: the tables of `views`, when the caller has built them (else built here).
    init(limits: DocumentLimits, views: ViewLookup, dialect: Dialect, compile: Bool, table: ViewTable? = nil) {
        self.limits = limits; self.views = views; self.dialect = dialect; self.compile = compile
        var context = CompileContext(views: views, dialect: dialect, priorityField: nil, maxMagnitude: limits.maxMagnitude)
        context.table = table ?? ViewTable(views: views.all, index: views.index)
        baseContext = context
    }

    /// Where an entry is, written out only when a problem is reported.
    struct EntryPointer {
        let base: String
        /// The entry's key (object form), else its index is used.
        let key: String?
        let index: Int
        var string: String { key.map { docPointer(base, $0) } ?? docPointer(base, index) }
    }

    mutating func parse(_ value: JSONValue, at base: String) {
        // Ids seen so far; only the array form can repeat one (the keys of an object are distinct).
        var seen = Set<String>()
        switch value {
        case .object(let o):
            guard checkCount(o.count, at: base) else { return }
            entries.reserveCapacity(o.count)
            let keys = o.keys, values = o.values
            for i in keys.indices {
                add(values[i], id: keys[i], at: EntryPointer(base: base, key: keys[i], index: 0), idInEntry: false,
                    keyed: true, idProblem: nil, seen: &seen)
            }
        case .array(let a):
            guard checkCount(a.count, at: base) else { return }
            entries.reserveCapacity(a.count)
            for (i, v) in a.enumerated() {
                let p = EntryPointer(base: base, key: nil, index: i)
                switch v["id"] {
                case nil: add(v, id: "#\(i)", at: p, idInEntry: false, keyed: false, idProblem: nil, seen: &seen)
                case .string(let s)?: add(v, id: s, at: p, idInEntry: true, keyed: false, idProblem: nil, seen: &seen)
                case let other?:
                    add(v, id: nil, at: p, idInEntry: false, keyed: false,
                        idProblem: Problem(docPointer(p.string, "id"), .invalidType,
                                           "expected a constraint id, got \(other.typeName)"), seen: &seen)
                }
            }
        default:
            problems.append(Problem(base, .invalidType,
                                    "expected an object keyed by constraint id, or an array of constraints, got \(value.typeName)"))
            return
        }
    }

    /// One entry keyed `id` under `base` (as in a canonical document), validated alone.
    mutating func parseKeyed(_ value: JSONValue, id: String, at base: String) {
        var seen = Set<String>()
        add(value, id: id, at: EntryPointer(base: base, key: id, index: 0), idInEntry: false, keyed: true,
            idProblem: nil, seen: &seen)
    }

    /// Validates one entry and adds it (when it has an id and no problem) with its problems.
    /// - Parameter idInEntry: the id was written as the entry's `id` field (problems about it point there).
    private mutating func add(_ value: JSONValue, id: String?, at p: EntryPointer, idInEntry: Bool, keyed: Bool,
                              idProblem: Problem?, seen: inout Set<String>) {
        var found: [Problem] = idProblem.map { [$0] } ?? []
        if let id {
            if let why = IDRules.problem(with: id, what: "a constraint") {
                found.append(Problem(idInEntry ? docPointer(p.string, "id") : p.string, .invalidID, why))
            } else if !keyed, !seen.insert(id).inserted {
                found.append(Problem(idInEntry ? docPointer(p.string, "id") : p.string, .duplicateID,
                                     "constraint id '\(id)' is used by an earlier constraint"))
            }
        }
        let (entry, more) = parseEntry(value, id: id ?? "", at: p, keyed: keyed)
        if !more.isEmpty { found += more }
        if found.isEmpty {
            if id != nil, let entry { entries.append(entry) }
            return
        }
        if found.count > 1, let o = value.objectValue { found = inFieldOrder(found, of: o, at: p.string) }
        problems += found
    }

    private mutating func checkCount(_ count: Int, at base: String) -> Bool {
        guard count > limits.maxConstraints else { return true }
        problems.append(Problem(base, .tooManyConstraints,
                                "\(count) constraints; this daemon accepts at most \(limits.maxConstraints)"))
        return false
    }

    /// Validates and compiles one entry; the caller puts the problems in field order.
    private func parseEntry(_ value: JSONValue, id: String, at p: EntryPointer, keyed: Bool) -> (ConstraintEntry?, [Problem]) {
        let context = baseContext
        switch value {
        case .string(let text):
            let result = compile ? ExpressionCompiler.compile(text, context: context) : .success([])
            let (items, found) = finish(result, context: context, prefix: p)
            return (ConstraintEntry(id: id, items: items), found)
        case .object(let o):
            return parseObject(o, id: id, at: p, keyed: keyed, context: context)
        default:
            return (nil, [Problem(p.string, .invalidType,
                                  "a constraint is an expression string or an object, got \(value.typeName)")])
        }
    }

    private func parseObject(_ o: JSONObject, id: String, at p: EntryPointer, keyed: Bool,
                             context base: CompileContext) -> (ConstraintEntry?, [Problem]) {
        var reader = FieldReader(maxMagnitude: limits.maxMagnitude)
        var entry = ConstraintEntry(id: id, items: [])
        var context = base
        let keys = o.keys, values = o.values
        // The form is selected by the first key that names one. The fields of the first 8 keys are
        // kept (8 bits each) for the second pass.
        var form: (field: ConstraintField, key: String)?
        var hasDialect = false
        var classes: UInt64 = 0
        for i in keys.indices {
            let field = ConstraintField(keys[i])
            if i < 8 { classes |= UInt64(field.rawValue) << (8 * i) }
            if form == nil && field.selectsForm { form = (field, keys[i]) }
            if field == .dialect { hasDialect = true }
        }
        if hasDialect, let v = o["dialect"] {
            context.dialect = reader.word(v, at: docPointer(p.string, "dialect"), what: "dialect",
                                          choices: Dialect.allCases.map { ($0.rawValue, $0) }) ?? dialect
        }
        var objectForm = ObjectFormCompiler.Fields()
        // Each field's pointer is written out only when the field has a problem.
        for i in keys.indices {
            let field = i < 8 ? ConstraintField(rawValue: UInt8(truncatingIfNeeded: classes >> (8 * i))) ?? .other
                : ConstraintField(keys[i])
            let key = keys[i], value = values[i]
            switch field {
            case .priority:
                if case .number(let v) = value, Priority.isValid(v) {
                    context.priorityField = v
                } else {
                    context.priorityField = reader.priority(value, at: docPointer(p.string, key))
                }
            case .activation:
                if case .string(let s) = value, let hit = ActivationParser.names.first(where: { $0.0 == s }) {
                    entry.activation = hit.1
                    continue
                }
                switch ActivationParser.parse(value, pointer: docPointer(p.string, key), views: views) {
                case .success(let a): entry.activation = a
                case .failure(let e): reader.problems += e.problems
                }
            case .active:
                if case .bool(let b) = value { entry.active = b } else {
                    entry.active = reader.bool(value, at: docPointer(p.string, key))
                }
            case .group:
                if case .string(let s) = value { entry.group = s } else {
                    entry.group = reader.string(value, at: docPointer(p.string, key))
                }
            case .identifier:
                if case .string(let s) = value { entry.identifier = s } else {
                    entry.identifier = reader.string(value, at: docPointer(p.string, key))
                }
            case .dialect: break
            case .id:
                guard keyed else { break }
                if case .string(let s) = value, s == id { break }
                let at = docPointer(p.string, key)
                if let s = reader.string(value, at: at), s != id {
                    reader.report(at, .invalidValue, "\"id\" is '\(s)' but the constraint's key is '\(id)'")
                }
            default:
                guard let form else { continue }  // reported once below as unknown_constraint_form
                if field.isField(ofForm: form.field) {
                    objectForm.set(field, at: i)
                } else {
                    let own = Self.formFields[form.key]!.union(Self.commonFields).subtracting(keyed ? ["id"] : [])
                    reader.report(docPointer(p.string, key), .unknownField,
                                  "'\(key)' is not a field of a '\(form.key)' constraint; allowed: "
                                  + own.sorted().joined(separator: ", "), suggestion: Suggestion.nearest(key, among: own.sorted()))
                }
            }
        }
        var found = reader.problems
        if let form {
            let (items, more) = compileForm(form.key, o, objectForm: objectForm, at: p, context: context,
                                            reader: &reader)
            entry.items = items
            found = reader.problems
            if !more.isEmpty { found += more }
        } else {
            found.append(Problem(p.string, .unknownConstraintForm,
                "a constraint object needs one of \"first\" (object form), \"expr\" (expression), \"format\" "
                + "(visual format), \"align\" or \"distribute\" (helpers); or write it as an expression string"))
        }
        return (entry, found)
    }

    /// - Parameter objectForm: the object form's fields, as read by `parseObject`.
    private func compileForm(_ form: String, _ o: JSONObject, objectForm: ObjectFormCompiler.Fields,
                             at entryPointer: EntryPointer, context: CompileContext,
                             reader: inout FieldReader) -> ([LinearConstraint], [Problem]) {
        if form == "first" {
            guard compile else { return ([], []) }
            // The common case (one item, nothing wrong) without the general compiler's intermediate
            // vectors; anything else goes through `compile` + `finish`, which give the same items.
            if let table = context.table,
               let item = ObjectFormCompiler.compileCommon(o, objectForm, context: context, table: table) {
                return ([item], [])
            }
            return finish(ObjectFormCompiler.compile(o, context: context), context: context, prefix: entryPointer)
        }
        let p = entryPointer.string
        switch form {
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
                        prefix: EntryPointer) -> ([LinearConstraint], [Problem]) {
        finish(result, context: context, prefix: prefix.string)
    }

    private func finish(_ result: Result<[LinearConstraint], [EntryProblem]>, context: CompileContext,
                        prefix: @autoclosure () -> String) -> ([LinearConstraint], [Problem]) {
        switch result {
        case .failure(let e):
            let prefix = prefix()
            return ([], Self.unique(e.map { Self.absolute($0, prefix: prefix) }))
        case .success(let items):
            if let table = context.table,
               items.allSatisfy({ ConstraintRules.passes($0, dialect: context.dialect, table: table) }) {
                return (items, [])
            }
            let found = items.flatMap { ConstraintRules.check($0, context: context) }
            if found.isEmpty { return (items, []) }
            let prefix = prefix()
            return (items, Self.unique(found.map { Self.absolute($0, prefix: prefix) }))
        }
    }

    static func absolute(_ e: EntryProblem, prefix: String) -> Problem {
        Problem(pointer: prefix + e.pointer, code: e.code, detail: e.detail, suggestion: e.suggestion)
    }

    static func unique(_ problems: [Problem]) -> [Problem] {
        var seen = Set<Problem>()
        return problems.filter { seen.insert($0).inserted }
    }
}

/// The field names of constraint entries. A key is told apart by its length and first byte, then
/// confirmed with one `==` (the comparison `switch` makes): these names contain no character that
/// another, canonically equivalent spelling could stand for, so this is the old `switch` on strings.
enum ConstraintField: UInt8 {
    case first, second, relation, multiplier, constant
    case priority, activation, active, group, identifier, dialect, id
    case expr, format, metrics, options, align, views, distribute, spacing
    case other

    init(_ key: String) {
        let utf8 = key.utf8
        guard let c = utf8.first else { self = .other; return }
        let field: ConstraintField, name: String
        switch (utf8.count, c) {
        case (2, UInt8(ascii: "i")): (field, name) = (.id, "id")
        case (4, UInt8(ascii: "e")): (field, name) = (.expr, "expr")
        case (5, UInt8(ascii: "f")): (field, name) = (.first, "first")
        case (5, UInt8(ascii: "g")): (field, name) = (.group, "group")
        case (5, UInt8(ascii: "a")): (field, name) = (.align, "align")
        case (5, UInt8(ascii: "v")): (field, name) = (.views, "views")
        case (6, UInt8(ascii: "s")): (field, name) = (.second, "second")
        case (6, UInt8(ascii: "a")): (field, name) = (.active, "active")
        case (6, UInt8(ascii: "f")): (field, name) = (.format, "format")
        case (7, UInt8(ascii: "d")): (field, name) = (.dialect, "dialect")
        case (7, UInt8(ascii: "m")): (field, name) = (.metrics, "metrics")
        case (7, UInt8(ascii: "o")): (field, name) = (.options, "options")
        case (7, UInt8(ascii: "s")): (field, name) = (.spacing, "spacing")
        case (8, UInt8(ascii: "r")): (field, name) = (.relation, "relation")
        case (8, UInt8(ascii: "c")): (field, name) = (.constant, "constant")
        case (8, UInt8(ascii: "p")): (field, name) = (.priority, "priority")
        case (10, UInt8(ascii: "m")): (field, name) = (.multiplier, "multiplier")
        case (10, UInt8(ascii: "a")): (field, name) = (.activation, "activation")
        case (10, UInt8(ascii: "i")): (field, name) = (.identifier, "identifier")
        case (10, UInt8(ascii: "d")): (field, name) = (.distribute, "distribute")
        default: self = .other; return
        }
        self = key == name ? field : .other
    }

    /// The keys of `ConstraintsParser.formFields`.
    var selectsForm: Bool {
        switch self {
        case .first, .expr, .format, .align, .distribute: return true
        default: return false
        }
    }

    /// Whether this is one of `ConstraintsParser.formFields[form]`.
    func isField(ofForm form: ConstraintField) -> Bool {
        switch form {
        case .first:
            switch self {
            case .first, .relation, .second, .multiplier, .constant: return true
            default: return false
            }
        case .expr: return self == .expr
        case .format: return self == .format || self == .metrics || self == .options
        case .align: return self == .align || self == .views
        case .distribute: return self == .distribute || self == .views || self == .spacing
        default: return false
        }
    }
}
