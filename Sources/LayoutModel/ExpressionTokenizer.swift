/// Tokens of the expression language (spec section 4 item 2). Columns are 1-based characters.
struct ExprToken: Equatable, Sendable {
    enum Kind: Equatable, Sendable {
        case number(Double)
        /// `view.attribute`, the attribute not yet resolved (the view may be unknown).
        case anchor(view: String, attribute: String)
        /// A word without `.attribute`: a bare view id, a priority name, or an unknown word.
        case name(String)
        case plus, minus, star, slash, lparen, rparen, comma, dot
        case relation(Relation)
        /// `~`, `!` or `@`.
        case marker(Character)
        case end
    }
    var kind: Kind
    var column: Int
    /// The text as written (for "found '...'").
    var text: String
}

/// Splits an expression into tokens. View ids may contain `-` and start with digits, so words are
/// matched against the document's view ids: the longest prefix that is a view id (and is not
/// itself a number literal, unless `.attribute` follows) wins; `a-10` is `a`, `-`, `10` when `a`
/// is a view and `a-10` is not.
///
/// Works on one byte per `Character` (`units`), so that no `Character` is built or classified per
/// step and token texts are made straight from bytes (in a profile of a 1,000-view form, the
/// `Character` array and its classification took most of the time of the expression path).
struct ExprTokenizer {
    /// One unit per `Character` of the text, so indices are columns - 1: the ASCII value of a
    /// single-scalar ASCII character, `space` for any whitespace (`\r\n` is one), `other` for the
    /// rest (never part of a token; only named in "unexpected character" messages).
    let units: [UInt8]
    let text: String
    let views: ViewLookup

    static let space = UInt8(ascii: " ")
    static let other: UInt8 = 0xFF

    init(_ text: String, views: ViewLookup) {
        self.text = text; self.views = views
        // ASCII without '\r' is one Character per byte ('\r\n' is one Character, so it is not).
        var simple = true
        for b in text.utf8 where b >= 0x80 || b == 0x0D { simple = false; break }
        if simple {
            units = text.utf8.map { (0x09 ... 0x0D).contains($0) ? Self.space : $0 }
        } else {
            units = text.map { c in c.isWhitespace ? Self.space : (c.asciiValue ?? Self.other) }
        }
    }

    /// The tokens (ending with `.end`), or a syntax problem's column and message.
    func tokenize() -> Result<[ExprToken], ExprSyntaxError> {
        var tokens: [ExprToken] = []
        var i = 0
        func add(_ kind: ExprToken.Kind, _ from: Int, _ to: Int) {
            tokens.append(ExprToken(kind: kind, column: from + 1, text: string(from, to)))
        }
        while i < units.count {
            let c = units[i]
            if c == Self.space { i += 1; continue }
            if isWordStart(c) || (c == UInt8(ascii: ".") && isDigit(at: i + 1)) {
                let (kind, end) = word(at: i)
                // Every token consumes at least one character: the loop must end on any input.
                guard end > i else {
                    return .failure(ExprSyntaxError(column: i + 1, message: "unexpected character '\(Character(Unicode.Scalar(c)))'"))
                }
                add(kind, i, end); i = end; continue
            }
            switch c {
            case UInt8(ascii: "+"): add(.plus, i, i + 1); i += 1
            case UInt8(ascii: "-"): add(.minus, i, i + 1); i += 1
            case UInt8(ascii: "*"): add(.star, i, i + 1); i += 1
            case UInt8(ascii: "/"): add(.slash, i, i + 1); i += 1
            case UInt8(ascii: "("): add(.lparen, i, i + 1); i += 1
            case UInt8(ascii: ")"): add(.rparen, i, i + 1); i += 1
            case UInt8(ascii: ","): add(.comma, i, i + 1); i += 1
            case UInt8(ascii: "."): add(.dot, i, i + 1); i += 1
            case UInt8(ascii: "~"), UInt8(ascii: "!"), UInt8(ascii: "@"):
                add(.marker(Character(Unicode.Scalar(c))), i, i + 1); i += 1
            case UInt8(ascii: "|"):
                guard let r = at(i + 1).flatMap(Self.relation), at(i + 2) == UInt8(ascii: "|") else {
                    return .failure(ExprSyntaxError(column: i + 1,
                        message: "expected a relation |=|, |>| or |<| after '|'"))
                }
                add(.relation(r), i, i + 3); i += 3
            case UInt8(ascii: "="), UInt8(ascii: ">"), UInt8(ascii: "<"):
                guard at(i + 1) == UInt8(ascii: "=") else {
                    let hint = c == UInt8(ascii: "=") ? "'==' (equality is written with two '=')"
                                                      : "'\(Character(Unicode.Scalar(c)))='"
                    return .failure(ExprSyntaxError(column: i + 1, message: "expected \(hint)"))
                }
                add(.relation(Self.relation(c)!), i, i + 2); i += 2
            default:
                // The character as written (`units` keeps only ASCII).
                let character = c == Self.other ? Array(text)[i] : Character(Unicode.Scalar(c))
                return .failure(ExprSyntaxError(column: i + 1, message: "unexpected character '\(character)'"))
            }
        }
        tokens.append(ExprToken(kind: .end, column: units.count + 1, text: ""))
        return .success(tokens)
    }

    private static func relation(_ c: UInt8) -> Relation? {
        switch c {
        case UInt8(ascii: "="): return .equal
        case UInt8(ascii: ">"): return .greaterOrEqual
        case UInt8(ascii: "<"): return .lessOrEqual
        default: return nil
        }
    }

    /// The text of units `from ..< to` (ASCII: tokens hold no other unit).
    private func string(_ from: Int, _ to: Int) -> String {
        units.withUnsafeBufferPointer { String(decoding: UnsafeBufferPointer(rebasing: $0[from ..< to]), as: UTF8.self) }
    }

    private func at(_ i: Int) -> UInt8? { i < units.count ? units[i] : nil }
    private func isLetter(_ c: UInt8) -> Bool {
        (c >= UInt8(ascii: "a") && c <= UInt8(ascii: "z")) || (c >= UInt8(ascii: "A") && c <= UInt8(ascii: "Z"))
    }
    private func isDigit(_ c: UInt8) -> Bool { c >= UInt8(ascii: "0") && c <= UInt8(ascii: "9") }
    private func isWordStart(_ c: UInt8) -> Bool {
        c == UInt8(ascii: "_") || c == UInt8(ascii: "#") || isLetter(c) || isDigit(c)
    }
    private func isDigit(at i: Int) -> Bool { at(i).map(isDigit) ?? false }
    private func isAttributeStart(at i: Int) -> Bool {
        at(i).map { $0 == UInt8(ascii: "_") || isLetter($0) } ?? false
    }
    /// `.attribute` follows position i.
    private func attributeFollows(_ i: Int) -> Bool { at(i) == UInt8(ascii: ".") && isAttributeStart(at: i + 1) }

    /// A word starting at `start`: an anchor, a name or a number; returns the token and its end.
    private func word(at start: Int) -> (ExprToken.Kind, Int) {
        var runEnd = start
        while let c = at(runEnd), isWordStart(c) || (c == UInt8(ascii: "-") && at(runEnd + 1).map(isWordStart) == true) {
            runEnd += 1
        }
        // Candidate ends: before each '-' of the run, and the run's end; longest first.
        var ends = [runEnd]
        for k in stride(from: runEnd - 1, to: start, by: -1) where units[k] == UInt8(ascii: "-") { ends.append(k) }
        for end in ends where end > start {
            let prefix = string(start, end)
            guard views[prefix] != nil else { continue }
            if Double(prefix) != nil && !attributeFollows(end) { continue }
            return withAttribute(view: prefix, end: end)
        }
        if units[start] == UInt8(ascii: ".") || isDigit(units[start]) {
            let (value, end) = number(at: start)
            if let value, !(at(end).map(isWordStart) ?? false), !attributeFollows(end) {
                return (.number(value), end)
            }
        }
        if runEnd == start {
            // `.5x`, `.5.top`: a fraction run into letters or a dot. No word starts here, so the
            // whole run (digits, letters, dots) is one name, which the parser reports as unknown.
            var j = start + 1
            while let c = at(j), isWordStart(c) || c == UInt8(ascii: ".") { j += 1 }
            return (.name(string(start, j)), j)
        }
        // Not a view: report the whole id when `.attribute` follows, else the part before any '-'.
        let end = attributeFollows(runEnd) ? runEnd : (ends.last(where: { $0 > start }) ?? runEnd)
        return withAttribute(view: string(start, end), end: end)
    }

    private func withAttribute(view: String, end: Int) -> (ExprToken.Kind, Int) {
        guard attributeFollows(end) else { return (.name(view), end) }
        var j = end + 1
        while let c = at(j), c == UInt8(ascii: "_") || isLetter(c) || isDigit(c) { j += 1 }
        return (.anchor(view: view, attribute: string(end + 1, j)), j)
    }

    /// digits [. digits] [e [+-] digits], or . digits ...
    private func number(at start: Int) -> (Double?, Int) {
        var j = start
        while isDigit(at: j) { j += 1 }
        if at(j) == UInt8(ascii: "."), isDigit(at: j + 1) { j += 1; while isDigit(at: j) { j += 1 } }
        if at(j) == UInt8(ascii: "e") || at(j) == UInt8(ascii: "E") {
            var k = j + 1
            if at(k) == UInt8(ascii: "+") || at(k) == UInt8(ascii: "-") { k += 1 }
            if isDigit(at: k) { j = k; while isDigit(at: j) { j += 1 } }
        }
        return (Double(string(start, j)), j)
    }
}

/// A syntax error: 1-based column and what was expected.
struct ExprSyntaxError: Error, Equatable, Sendable {
    var column: Int
    var message: String
}
