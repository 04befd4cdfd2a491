/// Writes a `JSONValue` as block-style YAML, for people and for tools that prefer YAML (the daemon's
/// `/openapi.yaml` is made this way from the embedded OpenAPI JSON).
///
/// Only the part of YAML needed to say what JSON says, chosen so that a YAML 1.1 reader (PyYAML)
/// and a YAML 1.2 reader both load back exactly the JSON value:
/// - objects as block mappings (`key: value`, nested ones indented by two spaces), arrays as block
///   sequences (`- item`), empty ones as `{}` and `[]`; keys in their stored order;
/// - numbers as JSONWriter writes them, except that a fraction or exponent always has a `.` (PyYAML
///   reads `1e-07` as a string, `1.0e-07` as a float);
/// - a string plain when nothing could read it as anything else (`GET`, `text/plain`, `3.1.0`);
///   a multi-line string as a literal block (`|`, `|-`, `|+`) when its lines allow it; else
///   double-quoted with JSON's escapes, which YAML's double-quoted style shares.
/// Output ends with a newline. Nothing is an anchor, alias, tag or flow collection beyond `{}`/`[]`.
public enum YAMLWriter {
    public static func string(_ value: JSONValue) -> String {
        var out = ""
        switch value {
        case .object(let o) where !o.isEmpty: mapping(o, indent: 0, inline: false, into: &out)
        case .array(let a) where !a.isEmpty: sequence(a, indent: 0, inline: false, into: &out)
        // A top-level literal block still indents its lines: PyYAML wants at least one space.
        default: scalar(value, indent: 2, into: &out)
        }
        return out
    }

    /// A block mapping at `indent`; `inline`: the first key goes on the current line (after `- `).
    static func mapping(_ o: JSONObject, indent: Int, inline: Bool, into out: inout String) {
        for (k, (key, value)) in o.entries.enumerated() {
            if k > 0 || !inline { out += String(repeating: " ", count: indent) }
            // YAML limits an implicit key to 1024 characters; a longer one takes the explicit form.
            let text = keyText(key)
            if text.utf8.count > 1000 {
                out += "? " + text + "\n" + String(repeating: " ", count: indent) + ":"
            } else {
                out += text + ":"
            }
            member(value, indent: indent, into: &out)
        }
    }

    static func sequence(_ a: [JSONValue], indent: Int, inline: Bool, into out: inout String) {
        for (k, item) in a.enumerated() {
            if k > 0 || !inline { out += String(repeating: " ", count: indent) }
            out += "-"
            switch item {
            case .object(let o) where !o.isEmpty:
                out += " "
                mapping(o, indent: indent + 2, inline: true, into: &out)
            case .array(let inner) where !inner.isEmpty:
                out += " "
                sequence(inner, indent: indent + 2, inline: true, into: &out)
            default:
                out += " "
                scalar(item, indent: indent + 2, into: &out)
            }
        }
    }

    /// What follows `key:`: a scalar on the same line, or a nested block on the next lines.
    static func member(_ value: JSONValue, indent: Int, into out: inout String) {
        switch value {
        case .object(let o) where !o.isEmpty:
            out += "\n"
            mapping(o, indent: indent + 2, inline: false, into: &out)
        case .array(let a) where !a.isEmpty:
            // Indented under the key, like the mappings, so that the nesting reads the same way.
            out += "\n"
            sequence(a, indent: indent + 2, inline: false, into: &out)
        default:
            out += " "
            scalar(value, indent: indent + 2, into: &out)
        }
    }

    /// A scalar or an empty collection and its newline; `indent` is that of a literal block's lines.
    static func scalar(_ value: JSONValue, indent: Int, into out: inout String) {
        switch value {
        case .null: out += "null\n"
        case .bool(let b): out += b ? "true\n" : "false\n"
        case .number(let d): out += number(d) + "\n"
        case .object: out += "{}\n"
        case .array: out += "[]\n"
        case .string(let s):
            if let block = literalBlock(s, indent: indent) {
                out += block
            } else {
                out += (isPlain(s) ? s : quoted(s)) + "\n"
            }
        }
    }

    static func number(_ d: Double) -> String {
        // JSON has no infinity or NaN; JSONWriter writes them as null, and so does this.
        guard d.isFinite else { return "null" }
        let json = String(decoding: JSONWriter.serialize(.number(d)), as: UTF8.self)
        guard !json.contains("."), let e = json.firstIndex(where: { $0 == "e" || $0 == "E" }) else { return json }
        return String(json[..<e]) + ".0" + String(json[e...])
    }

    static func keyText(_ key: String) -> String { isPlain(key) ? key : quoted(key) }

    /// Words YAML 1.1 or 1.2 reads as booleans or null, in any case.
    static let reserved: Set<String> = ["true", "false", "yes", "no", "on", "off", "null", "y", "n"]

    /// A string that every YAML reader takes as that same string when written bare: it starts with
    /// an ASCII letter and holds only letters, digits, spaces and `_ . , / + - ( )` (no `:`, `#`,
    /// quote or bracket that would mean something), does not end with a space and is not a reserved
    /// word; or it is digits with at least two dots (`3.1.0`), which no number or date rule matches.
    static func isPlain(_ s: String) -> Bool {
        let u = Array(s.utf8)
        guard let first = u.first, u.last != 0x20 else { return false }
        func isDigit(_ c: UInt8) -> Bool { c >= 0x30 && c <= 0x39 }
        func isLetter(_ c: UInt8) -> Bool { (c | 0x20) >= 0x61 && (c | 0x20) <= 0x7A }
        if isDigit(first) {
            return u.allSatisfy { isDigit($0) || $0 == 0x2E } && u.filter { $0 == 0x2E }.count >= 2
                && u.last != 0x2E && !s.contains("..")
        }
        guard isLetter(first), !reserved.contains(s.lowercased()) else { return false }
        return u.allSatisfy { c in
            isLetter(c) || isDigit(c) || c == 0x20 || c == 0x5F || c == 0x2E || c == 0x2C || c == 0x2F
                || c == 0x2B || c == 0x2D || c == 0x28 || c == 0x29
        }
    }

    /// A character a YAML stream may not hold as is (PyYAML rejects them anywhere), or that YAML 1.1
    /// reads as a line break (NEL, LS, PS), or the byte-order mark.
    static func needsEscape(_ v: UInt32) -> Bool {
        v < 0x20 || (v >= 0x7F && v <= 0x9F) || v == 0x2028 || v == 0x2029 || v == 0xFEFF || v == 0xFFFE || v == 0xFFFF
    }

    /// The literal block (`|` and its chomping indicator, then the lines at `indent`) of a string
    /// that has a line break, when that keeps every character: no tab or character to escape, no
    /// line of spaces only (a reader may take it for an empty line), and a first non-empty line
    /// that does not start with a space (the block's indentation is read from it). Nil otherwise.
    static func literalBlock(_ s: String, indent: Int) -> String? {
        guard s.contains("\n") else { return nil }
        for scalar in s.unicodeScalars where scalar != "\n" {
            if scalar == "\t" || needsEscape(scalar.value) { return nil }
        }
        let lines = s.split(separator: "\n", omittingEmptySubsequences: false)
        guard let firstText = lines.first(where: { !$0.isEmpty }), firstText.unicodeScalars.first != " " else { return nil }
        if lines.contains(where: { !$0.isEmpty && $0.allSatisfy { $0 == " " } }) { return nil }
        // Chomping: `|-` no final line break, `|` exactly one, `|+` keeps them all.
        var body = lines
        var trailing = 0
        while body.last == "" { body.removeLast(); trailing += 1 }
        let header = trailing == 0 ? "|-" : trailing == 1 ? "|" : "|+"
        let pad = String(repeating: " ", count: indent)
        var out = header + "\n"
        for line in body { out += line.isEmpty ? "\n" : pad + line + "\n" }
        if trailing > 1 { out += String(repeating: "\n", count: trailing - 1) }
        return out
    }

    /// A double-quoted string: JSON's escapes, which YAML's double-quoted style reads the same way.
    static func quoted(_ s: String) -> String {
        var out = "\""
        for scalar in s.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\t": out += "\\t"
            case "\r": out += "\\r"
            default:
                if needsEscape(scalar.value) {
                    let hex = String(scalar.value, radix: 16, uppercase: true)
                    out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
                } else {
                    out.unicodeScalars.append(scalar)
                }
            }
        }
        return out + "\""
    }
}
