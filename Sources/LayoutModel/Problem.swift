/// One problem found in a layout document or patch: where (RFC 6901 JSON pointer), what (a stable
/// snake_case code) and a message a person can act on.
public struct Problem: Equatable, Hashable, Sendable, CustomStringConvertible {
    public var pointer: String
    public var code: String
    public var detail: String
    /// The word the client probably meant ("did you mean"), when the problem names a misspelt id,
    /// attribute, field or priority and a near one exists (`Suggestion`); the detail says it too.
    public var suggestion: String?
    public init(pointer: String, code: String, detail: String, suggestion: String? = nil) {
        self.pointer = pointer; self.code = code; self.detail = detail; self.suggestion = suggestion
    }
    public var description: String { "\(pointer): \(code): \(detail)" }
}

/// Thrown (or returned) when a document is invalid; lists every problem found, not only the first.
public struct ValidationError: Error, Equatable, Sendable {
    public var problems: [Problem]
    public init(_ problems: [Problem]) { self.problems = problems }
}

/// Limits on document size and numbers; the daemon's configuration may lower them.
public struct DocumentLimits: Equatable, Sendable {
    public var maxViews: Int
    public var maxConstraints: Int
    /// Largest magnitude accepted for any number (constants, sizes, multipliers, metrics).
    public var maxMagnitude: Double
    public init(maxViews: Int = 20_000, maxConstraints: Int = 100_000, maxMagnitude: Double = 1e7) {
        self.maxViews = maxViews; self.maxConstraints = maxConstraints; self.maxMagnitude = maxMagnitude
    }
    public static let `default` = DocumentLimits()
}

/// Escapes one reference token of a JSON pointer (RFC 6901: `~` → `~0`, `/` → `~1`).
public func jsonPointerToken(_ s: String) -> String {
    // Without a '~' or '/' byte there is nothing to escape: the common case, without walking the string.
    if !s.utf8.contains(where: { $0 == UInt8(ascii: "~") || $0 == UInt8(ascii: "/") }) { return s }
    // By scalar, not by Character: a '~' or '/' followed by a combining mark ("~\u{301}") is one Character that
    // is neither, and was left unescaped (found by the fuzz-document fuzzer).
    var out = String.UnicodeScalarView()
    for scalar in s.unicodeScalars {
        switch scalar {
        case "~": out.append(contentsOf: "~0".unicodeScalars)
        case "/": out.append(contentsOf: "~1".unicodeScalars)
        default: out.append(scalar)
        }
    }
    return String(out)
}
