import Testing
import TestSupport
import JSON
@testable import LayoutModel

@Suite("Expression tokenizer: any text, non-ASCII and line breaks included, splits into the tokens of the Character-based reference")
struct ExpressionTokenizerTests {
    @Test("random texts, with non-ASCII characters, \\r\\n and combining marks")
    func randomTexts() {
        var rng = SeededGenerator(seed: 7)
        let views = ExpressionFastPathTests.views
        let pieces = ["a", ".", "top", "b", "-", "10", "my-view", "2col", "e", "\u{301}", "é", "\r\n", "\r", "\n",
                      "\t", " ", "\u{A0}", "\u{2003}", "\u{1C}", "\u{7F}", "\0", "=", "==", "|=|", "|", ">", "<",
                      "~", "!", "@", "(", ")", ",", "*", "/", "+", "1.5", "e5", "E", "_", "#", "low", "0", "😀", "x"]
        for _ in 0 ..< 20_000 {
            var text = ""
            for _ in 0 ..< Int.random(in: 0 ... 8, using: &rng) { text += pieces.randomElement(using: &rng)! }
            if ExpressionFastPathTests.stallsTokenizer(text) { continue }
            let new = ExprTokenizer(text, views: views).tokenize()
            let old = ReferenceExprTokenizer(text, views: views).tokenize()
            #expect(new == old, "'\(text.debugDescription)'")
        }
    }
}


/// ExprTokenizer as it was before it worked on bytes (a `Character` array), kept to test the
/// byte version against. Splits an expression into tokens. View ids may contain `-` and start with digits, so words are
/// matched against the document's view ids: the longest prefix that is a view id (and is not
/// itself a number literal, unless `.attribute` follows) wins; `a-10` is `a`, `-`, `10` when `a`
/// is a view and `a-10` is not.
struct ReferenceExprTokenizer {
    let chars: [Character]
    let views: ViewLookup

    init(_ text: String, views: ViewLookup) { chars = Array(text); self.views = views }

    /// The tokens (ending with `.end`), or a syntax problem's column and message.
    func tokenize() -> Result<[ExprToken], ExprSyntaxError> {
        var tokens: [ExprToken] = []
        var i = 0
        func add(_ kind: ExprToken.Kind, _ from: Int, _ to: Int) {
            tokens.append(ExprToken(kind: kind, column: from + 1, text: String(chars[from..<to])))
        }
        while i < chars.count {
            let c = chars[i]
            if c.isWhitespace { i += 1; continue }
            if isWordStart(c) || (c == "." && isDigit(at: i + 1)) {
                let (kind, end) = word(at: i)
                add(kind, i, end); i = end; continue
            }
            switch c {
            case "+": add(.plus, i, i + 1); i += 1
            case "-": add(.minus, i, i + 1); i += 1
            case "*": add(.star, i, i + 1); i += 1
            case "/": add(.slash, i, i + 1); i += 1
            case "(": add(.lparen, i, i + 1); i += 1
            case ")": add(.rparen, i, i + 1); i += 1
            case ",": add(.comma, i, i + 1); i += 1
            case ".": add(.dot, i, i + 1); i += 1
            case "~", "!", "@": add(.marker(c), i, i + 1); i += 1
            case "|":
                let rel: [Character: Relation] = ["=": .equal, ">": .greaterOrEqual, "<": .lessOrEqual]
                guard let r = at(i + 1).flatMap({ rel[$0] }), at(i + 2) == "|" else {
                    return .failure(ExprSyntaxError(column: i + 1,
                        message: "expected a relation |=|, |>| or |<| after '|'"))
                }
                add(.relation(r), i, i + 3); i += 3
            case "=", ">", "<":
                guard at(i + 1) == "=" else {
                    let hint = c == "=" ? "'==' (equality is written with two '=')" : "'\(c)='"
                    return .failure(ExprSyntaxError(column: i + 1, message: "expected \(hint)"))
                }
                let r: Relation = c == "=" ? .equal : (c == ">" ? .greaterOrEqual : .lessOrEqual)
                add(.relation(r), i, i + 2); i += 2
            default:
                return .failure(ExprSyntaxError(column: i + 1, message: "unexpected character '\(c)'"))
            }
        }
        tokens.append(ExprToken(kind: .end, column: chars.count + 1, text: ""))
        return .success(tokens)
    }

    private func at(_ i: Int) -> Character? { i < chars.count ? chars[i] : nil }
    private func isWordStart(_ c: Character) -> Bool {
        c == "_" || c == "#" || (c.isASCII && (c.isLetter || c.isNumber))
    }
    private func isDigit(at i: Int) -> Bool { at(i).map { $0.isASCII && $0.isNumber } ?? false }
    private func isAttributeStart(at i: Int) -> Bool {
        at(i).map { $0 == "_" || ($0.isASCII && $0.isLetter) } ?? false
    }
    /// `.attribute` follows position i.
    private func attributeFollows(_ i: Int) -> Bool { at(i) == "." && isAttributeStart(at: i + 1) }

    /// A word starting at `start`: an anchor, a name or a number; returns the token and its end.
    private func word(at start: Int) -> (ExprToken.Kind, Int) {
        var runEnd = start
        while let c = at(runEnd), isWordStart(c) || (c == "-" && at(runEnd + 1).map(isWordStart) == true) {
            runEnd += 1
        }
        // Candidate ends: before each '-' of the run, and the run's end; longest first.
        var ends = [runEnd]
        for k in stride(from: runEnd - 1, to: start, by: -1) where chars[k] == "-" { ends.append(k) }
        for end in ends where end > start {
            let prefix = String(chars[start..<end])
            guard views[prefix] != nil else { continue }
            if Double(prefix) != nil && !attributeFollows(end) { continue }
            return withAttribute(view: prefix, end: end)
        }
        if chars[start] == "." || (chars[start].isASCII && chars[start].isNumber) {
            let (value, end) = number(at: start)
            if let value, !(at(end).map(isWordStart) ?? false), !attributeFollows(end) {
                return (.number(value), end)
            }
        }
        // Not a view: report the whole id when `.attribute` follows, else the part before any '-'.
        let end = attributeFollows(runEnd) ? runEnd : (ends.last(where: { $0 > start }) ?? runEnd)
        return withAttribute(view: String(chars[start..<end]), end: end)
    }

    private func withAttribute(view: String, end: Int) -> (ExprToken.Kind, Int) {
        guard attributeFollows(end) else { return (.name(view), end) }
        var j = end + 1
        while let c = at(j), c == "_" || (c.isASCII && (c.isLetter || c.isNumber)) { j += 1 }
        return (.anchor(view: view, attribute: String(chars[(end + 1)..<j])), j)
    }

    /// digits [. digits] [e [+-] digits], or . digits ...
    private func number(at start: Int) -> (Double?, Int) {
        var j = start
        while isDigit(at: j) { j += 1 }
        if at(j) == ".", isDigit(at: j + 1) { j += 1; while isDigit(at: j) { j += 1 } }
        if at(j) == "e" || at(j) == "E" {
            var k = j + 1
            if at(k) == "+" || at(k) == "-" { k += 1 }
            if isDigit(at: k) { j = k; while isDigit(at: j) { j += 1 } }
        }
        return (Double(String(chars[start..<j])), j)
    }
}


@Suite("Expression tokenizer: termination")
struct ExpressionTokenizerTerminationTests {
    @Test("a fraction run into letters or dots is a syntax problem, not an endless loop", arguments: [
        "a.width == .5x", "a.width == 1.5e", "a.width == .5.top", ".5x", "1.5e", ".5.top", "..5", ".5..",
        "1e", "1e+", "a.width == 1.5e+x", "a.width == .5e5x",
    ])
    func fractions(_ text: String) throws {
        let doc = try JSONParser.parse(#"{"views": {"a": {}}, "constraints": {"c": "\#(text)"}}"#)
        guard case .failure(let e) = DocumentParser.parse(doc) else {
            Issue.record("\(text) parsed")
            return
        }
        #expect(e.problems.first?.pointer == "/constraints/c")
    }

    @Test("random texts over digits, dots, letters and operators always tokenize in bounded steps")
    func randomTexts() {
        var rng = SeededGenerator(seed: 21)
        let alphabet = Array(".0123456789aex+-*/()=<>| #_~")
        let views: ViewLookup = ["a": View(id: "a"), "b1": View(id: "b1")]
        for _ in 0..<20_000 {
            let text = String((0..<Int.random(in: 1...12, using: &rng)).map { _ in alphabet.randomElement(using: &rng)! })
            switch ExprTokenizer(text, views: views).tokenize() {
            case .success(let tokens): #expect(tokens.count <= text.utf8.count + 1, "\(text)")
            case .failure: break
            }
        }
    }
}
