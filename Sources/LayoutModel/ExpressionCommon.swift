/// The common expression compiled straight from its UTF-8 bytes, as `ObjectFormCompiler.compileCommon`
/// does for the object form: no `Character` array, no token strings, no syntax tree, no vectors (in
/// a profile of a 1,000-view form, the general path spent nearly all its time building those).
///
/// The common shapes, over single attributes (canonical names) of known views:
///
///     first REL [-]number [marker priority]
///     first REL ([-]number * second | second [* [-]number]) {(+ | -) [-]number} [marker priority]
///
/// Anything else (another shape, a composite, an alias attribute, an unknown view, a number out
/// of range, whitespace other than space, tab and newline, non-ASCII text, the mag and mortar
/// dialects, a priority given twice, terms that cancel out...) gives nil and takes the general
/// path, which decides and describes. So this path reports no problem, and its item is the general
/// path's: the same floating-point operations in the same order. (`ConstraintRules` are applied by
/// the caller either way.)
extension ExpressionCompiler {
    static func compileCommon(_ text: String, context: CompileContext, table: ViewTable) -> LinearConstraint? {
        // Mag reads `b.top + c` differently; Mortar's `~` is an inset and it adds a superview term.
        guard context.dialect != .mag, context.dialect != .mortar, table.hasByteTable else { return nil }
        let found = text.utf8.withContiguousStorageIfAvailable { bytes -> CommonExpression? in
            var scanner = CommonExpressionScanner(bytes: bytes, table: table, maxMagnitude: context.maxMagnitude)
            return scanner.scan()
        }
        guard case .some(.some(let e)) = found else { return nil }
        return item(e, context: context, table: table)
    }

    /// `(lhs - rhs).combined()` as `makeItems` computes it: the right side is scaled by -1, like
    /// terms are summed from 0, and a term whose sum cancels is dropped.
    private static func item(_ e: CommonExpression, context: CompileContext, table: ViewTable) -> LinearConstraint? {
        if e.priority != nil && context.priorityField != nil { return nil }  // duplicate_priority
        let firstView = table.ids[e.first.view]
        let a = Anchor(firstView, e.first.attribute)
        var terms: [LinearTerm]
        var views = [firstView]
        if let s = e.second {
            let coefficient = s.coefficient * -1
            if s.view == e.first.view && s.attribute == e.first.attribute {
                let sum = (0 + 1.0) + coefficient, magnitude = (0 + 1.0) + abs(coefficient)
                guard !(abs(sum) <= 1e-12 * magnitude) else { return nil }  // no anchor left
                terms = [LinearTerm(a, sum)]
            } else {
                terms = [LinearTerm(a, 0 + 1.0)]
                let sum = 0 + coefficient, magnitude = 0 + abs(coefficient)
                if !(abs(sum) <= 1e-12 * magnitude) {
                    terms.append(LinearTerm(Anchor(table.ids[s.view], s.attribute), sum))
                }
            }
            // The second view counts even when its term dropped out (`uniqueViews` of all references).
            if s.view != e.first.view { views.append(table.ids[s.view]) }
        } else {
            terms = [LinearTerm(a, 0 + 1.0)]
        }
        let sum = 0 + e.constant * -1
        let constant = sum == 0 ? 0 : sum
        // number_out_of_range on a computed coefficient or constant.
        let max = context.maxMagnitude
        for x in terms.map(\.coefficient) + [constant] where !(x.isFinite && abs(x) <= max) { return nil }
        // Not Mortar, so `ConstraintRules.measuringFromSuperview` leaves the item as it is.
        return LinearConstraint(terms: terms, constant: constant, relation: e.relation,
                                priority: e.priority ?? context.defaultPriority, views: views,
                                firstView: table.isGuide[e.first.view] ? nil : firstView)
    }
}

/// A common expression, its right side already evaluated as `ExprEvaluator` evaluates it.
struct CommonExpression {
    var first: (view: Int, attribute: Attribute)
    var relation: Relation
    /// The right side's anchor and its coefficient; nil for a constant right side.
    var second: (view: Int, attribute: Attribute, coefficient: Double)?
    /// The right side's constant.
    var constant: Double
    var priority: Double?
}

/// Reads a common expression from its bytes, token by token as `ExprTokenizer` splits them; nil as
/// soon as the text leaves the common shapes (the general path then reads it again).
private struct CommonExpressionScanner {
    let bytes: UnsafeBufferPointer<UInt8>
    let table: ViewTable
    let maxMagnitude: Double
    var i = 0

    init(bytes: UnsafeBufferPointer<UInt8>, table: ViewTable, maxMagnitude: Double) {
        self.bytes = bytes; self.table = table; self.maxMagnitude = maxMagnitude
    }

    mutating func scan() -> CommonExpression? {
        guard let first = anchor(), let relation = relation() else { return nil }
        var e = CommonExpression(first: first, relation: relation, second: nil, constant: 0, priority: nil)
        // `m * second` and `second * m` give the coefficient 1·m and the constant 0·m (-0 for m < 0).
        if let m = operand() {
            guard skip(UInt8(ascii: "*")) else {
                e.constant = m
                return priority(&e) ? e : nil
            }
            guard let s = anchor() else { return nil }
            e.second = (s.view, s.attribute, 1 * m)
            e.constant = 0 * m
        } else {
            guard let s = anchor() else { return nil }
            e.second = (s.view, s.attribute, 1)
            if skip(UInt8(ascii: "*")) {
                guard let m = operand() else { return nil }
                e.second!.coefficient = 1 * m
                e.constant = 0 * m
            }
        }
        // `+ c` adds c; `- c` adds the negated vector, c·(-1).
        while true {
            if skip(UInt8(ascii: "+")) {
                guard let c = operand() else { return nil }
                e.constant = e.constant + c
            } else if skip(UInt8(ascii: "-")) {
                guard let c = operand() else { return nil }
                e.constant = e.constant + c * -1
            } else {
                break
            }
        }
        return priority(&e) ? e : nil
    }

    /// An optional `marker priority`, then the end of the text.
    private mutating func priority(_ e: inout CommonExpression) -> Bool {
        skipSpaces()
        guard i < bytes.count else { return true }
        switch bytes[i] {
        case UInt8(ascii: "~"), UInt8(ascii: "!"), UInt8(ascii: "@"): i += 1
        default: return false
        }
        skipSpaces()
        let text: String
        if let (start, end) = numberToken() {
            text = string(start, end)
        } else {
            if i < bytes.count && bytes[i] == UInt8(ascii: ".") { i += 1; skipSpaces() }  // Swift's `.high`
            let start = i, end = runEnd(from: start)
            // A name: not a number, no '-' (view-id matching), no `.attribute` after it.
            guard end > start, !isDigit(bytes[start]), !continuesRun(end), !attributeFollows(end) else { return false }
            text = string(start, end)
            i = end
        }
        guard let p = Priority.parse(text) else { return false }
        e.priority = p
        skipSpaces()
        return i == bytes.count
    }

    /// `view.attribute`: the whole word, '-' continuations included, is a view id (the tokenizer's
    /// first candidate) and the attribute is a canonical single attribute.
    private mutating func anchor() -> (view: Int, attribute: Attribute)? {
        skipSpaces()
        let start = i
        var end = runEnd(from: start)
        while continuesRun(end) { end = runEnd(from: end + 1) }
        guard end > start, attributeFollows(end),
              let view = table.position(ofID: UnsafeBufferPointer(rebasing: bytes[start ..< end])) else { return nil }
        var j = end + 1
        while j < bytes.count && isAttributeByte(bytes[j]) { j += 1 }
        guard let attribute = ViewTable.attribute(UnsafeBufferPointer(rebasing: bytes[(end + 1) ..< j])) else {
            return nil
        }
        i = j
        return (view, attribute)
    }

    private mutating func relation() -> Relation? {
        skipSpaces()
        guard i + 1 < bytes.count else { return nil }
        let r: Relation
        var length = 2
        switch (bytes[i], bytes[i + 1]) {
        case (UInt8(ascii: "="), UInt8(ascii: "=")): r = .equal
        case (UInt8(ascii: ">"), UInt8(ascii: "=")): r = .greaterOrEqual
        case (UInt8(ascii: "<"), UInt8(ascii: "=")): r = .lessOrEqual
        case (UInt8(ascii: "|"), let c):
            guard i + 2 < bytes.count, bytes[i + 2] == UInt8(ascii: "|") else { return nil }
            switch c {
            case UInt8(ascii: "="): r = .equal
            case UInt8(ascii: ">"): r = .greaterOrEqual
            case UInt8(ascii: "<"): r = .lessOrEqual
            default: return nil
            }
            length = 3
        default: return nil
        }
        i += length
        return r
    }

    /// `[-]number` within the document's magnitude limit (the sign negates the number exactly, as
    /// `ExprEvaluator` negates a scalar); nil, with nothing consumed, otherwise.
    private mutating func operand() -> Double? {
        let saved = i
        skipSpaces()
        var negative = false
        if i < bytes.count && bytes[i] == UInt8(ascii: "-") { negative = true; i += 1; skipSpaces() }
        guard let (start, end) = numberToken(), let v = Double(string(start, end)),
              v.isFinite && abs(v) <= maxMagnitude else { i = saved; return nil }
        return negative ? -v : v
    }

    /// A number token at `i` as `ExprTokenizer.word(at:)` reads one: its byte range, and `i` moved
    /// past it; nil (nothing consumed) when the tokenizer could read something else there.
    private mutating func numberToken() -> (Int, Int)? {
        let start = i, n = bytes.count
        guard start < n else { return nil }
        if isDigit(bytes[start]) {
            // The tokenizer tries the word as a view id first (a '-' in it is left to it); a view id
            // that reads as a number is still a number unless `.attribute` follows.
            let end = runEnd(from: start)
            if continuesRun(end) { return nil }
            if table.position(ofID: UnsafeBufferPointer(rebasing: bytes[start ..< end])) != nil,
               Double(string(start, end)) == nil || attributeFollows(end) {
                return nil
            }
        } else if !(bytes[start] == UInt8(ascii: ".") && start + 1 < n && isDigit(bytes[start + 1])) {
            return nil
        }
        // digits [. digits] [e [+-] digits], or . digits ...
        var j = start
        while j < n && isDigit(bytes[j]) { j += 1 }
        if j + 1 < n, bytes[j] == UInt8(ascii: "."), isDigit(bytes[j + 1]) {
            j += 1
            while j < n && isDigit(bytes[j]) { j += 1 }
        }
        if j < n, bytes[j] == UInt8(ascii: "e") || bytes[j] == UInt8(ascii: "E") {
            var k = j + 1
            if k < n, bytes[k] == UInt8(ascii: "+") || bytes[k] == UInt8(ascii: "-") { k += 1 }
            if k < n, isDigit(bytes[k]) {
                j = k
                while j < n && isDigit(bytes[j]) { j += 1 }
            }
        }
        guard !(j < n && isWordByte(bytes[j])), !attributeFollows(j) else { return nil }
        i = j
        return (start, j)
    }

    /// The end of the run of word bytes from `start`, without the tokenizer's '-' continuations
    /// (`continuesRun` tells whether one follows).
    private func runEnd(from start: Int) -> Int {
        var j = start
        while j < bytes.count && isWordByte(bytes[j]) { j += 1 }
        return j
    }

    /// Whether the tokenizer's word goes on past `end` through a '-' (`my-view`).
    private func continuesRun(_ end: Int) -> Bool {
        end + 1 < bytes.count && bytes[end] == UInt8(ascii: "-") && isWordByte(bytes[end + 1])
    }

    /// `.attribute` follows position `j`.
    private func attributeFollows(_ j: Int) -> Bool {
        guard j + 1 < bytes.count, bytes[j] == UInt8(ascii: ".") else { return false }
        let c = bytes[j + 1]
        return c == UInt8(ascii: "_") || isLetter(c)
    }

    private mutating func skip(_ byte: UInt8) -> Bool {
        skipSpaces()
        guard i < bytes.count && bytes[i] == byte else { return false }
        i += 1
        return true
    }

    /// Space, tab and newline only: other whitespace (`\r\n` is one `Character`, so one column) is
    /// left to the general path.
    private mutating func skipSpaces() {
        while i < bytes.count, bytes[i] == 0x20 || bytes[i] == 0x09 || bytes[i] == 0x0A { i += 1 }
    }

    private func string(_ start: Int, _ end: Int) -> String {
        String(decoding: UnsafeBufferPointer(rebasing: bytes[start ..< end]), as: UTF8.self)
    }

    private func isDigit(_ c: UInt8) -> Bool { c >= UInt8(ascii: "0") && c <= UInt8(ascii: "9") }
    private func isLetter(_ c: UInt8) -> Bool {
        (c >= UInt8(ascii: "a") && c <= UInt8(ascii: "z")) || (c >= UInt8(ascii: "A") && c <= UInt8(ascii: "Z"))
    }
    /// `ExprTokenizer.isWordStart`: `_`, `#`, ASCII letters and digits.
    private func isWordByte(_ c: UInt8) -> Bool {
        c == UInt8(ascii: "_") || c == UInt8(ascii: "#") || isLetter(c) || isDigit(c)
    }
    private func isAttributeByte(_ c: UInt8) -> Bool { c == UInt8(ascii: "_") || isLetter(c) || isDigit(c) }
}
