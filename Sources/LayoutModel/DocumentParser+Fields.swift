import JSON

/// Appends RFC 6901 reference tokens to a JSON pointer.
func docPointer(_ base: String, _ token: String) -> String { base + "/" + jsonPointerToken(token) }
func docPointer(_ base: String, _ index: Int) -> String { base + "/" + String(index) }

/// Stable-sorts an entry's problems by the position of the field they point into; problems about
/// the entry itself come first.
func inFieldOrder(_ problems: [Problem], of o: JSONObject, at p: String) -> [Problem] {
    guard problems.count > 1 else { return problems }
    var rank: [String: Int] = [:]
    for (i, key) in o.keys.enumerated() { rank[jsonPointerToken(key)] = i }
    func position(_ problem: Problem) -> Int {
        guard problem.pointer.utf8.count > p.utf8.count, problem.pointer.hasPrefix(p) else { return -1 }
        let rest = problem.pointer.utf8.dropFirst(p.utf8.count + 1)
        return rank[String(Substring(rest.prefix(while: { $0 != UInt8(ascii: "/") })))] ?? o.count
    }
    return problems.enumerated()
        .sorted { (position($0.element), $0.offset) < (position($1.element), $1.offset) }
        .map(\.element)
}

/// Reads typed fields out of JSON values and collects every problem it meets, so that one pass over
/// a document reports all of them. Each reader returns nil when the value is unusable.
struct FieldReader {
    var problems: [Problem] = []
    let maxMagnitude: Double

    init(maxMagnitude: Double) { self.maxMagnitude = maxMagnitude }

    mutating func report(_ at: String, _ code: ProblemCode, _ detail: String, suggestion: String? = nil) {
        problems.append(Problem(at, code, detail + Suggestion.phrase(suggestion), suggestion: suggestion))
    }

    mutating func typeMismatch(_ value: JSONValue, expected: String, at: String) {
        report(at, .invalidType, "expected \(expected), got \(value.typeName)")
    }

    mutating func object(_ value: JSONValue, at: String) -> JSONObject? {
        if case .object(let o) = value { return o }
        typeMismatch(value, expected: "an object", at: at)
        return nil
    }

    mutating func string(_ value: JSONValue, at: String) -> String? {
        if case .string(let s) = value { return s }
        typeMismatch(value, expected: "a string", at: at)
        return nil
    }

    mutating func bool(_ value: JSONValue, at: String) -> Bool? {
        if case .bool(let b) = value { return b }
        typeMismatch(value, expected: "true or false", at: at)
        return nil
    }

    /// A finite number no larger in magnitude than the limit.
    mutating func number(_ value: JSONValue, at: String) -> Double? {
        guard case .number(let x) = value else {
            typeMismatch(value, expected: "a number", at: at)
            return nil
        }
        guard let checked = Self.checkMagnitude(x, maxMagnitude: maxMagnitude) else {
            report(at, .numberOutOfRange, Self.magnitudeMessage(x, maxMagnitude: maxMagnitude))
            return nil
        }
        return checked
    }

    /// A number as `number(_:at:)` that must also be >= 0 (a width or height).
    mutating func size(_ value: JSONValue, at: String) -> Double? {
        guard let x = number(value, at: at) else { return nil }
        if x < 0 {
            report(at, .negativeSize, "a size must be >= 0, got \(formatNumber(x))")
            return nil
        }
        return x
    }

    mutating func priority(_ value: JSONValue, at: String) -> Double? {
        switch Priority.parse(value, pointer: at) {
        case .success(let p): return p
        case .failure(let problem): problems.append(problem); return nil
        }
    }

    /// One of a fixed set of words.
    mutating func word<T>(_ value: JSONValue, at: String, what: String, choices: [(String, T)]) -> T? {
        guard let s = string(value, at: at) else { return nil }
        if let hit = choices.first(where: { $0.0 == s }) { return hit.1 }
        report(at, .invalidValue,
               "unknown \(what) '\(s)'; use one of \(choices.map { $0.0 }.joined(separator: ", "))")
        return nil
    }

    /// Reports every key of `object` that is not in `allowed`.
    mutating func rejectUnknownFields(_ object: JSONObject, at: String, allowed: Set<String>, place: String) {
        for key in object.keys where !allowed.contains(key) {
            report(docPointer(at, key), .unknownField,
                   "unknown field '\(key)' in \(place); allowed: \(allowed.sorted().joined(separator: ", "))",
                   suggestion: Suggestion.nearest(key, among: allowed.sorted()))
        }
    }

    /// An object of optional numbers with fixed keys (`frame`, `margins`, `intrinsicSize`, ...).
    /// - Returns: the numbers that are valid, by key; unknown keys are reported.
    mutating func numberFields(_ value: JSONValue, at: String, keys: [String], place: String,
                               sizes: Set<String> = []) -> [String: Double]? {
        guard let o = object(value, at: at) else { return nil }
        rejectUnknownFields(o, at: at, allowed: Set(keys), place: place)
        var out: [String: Double] = [:]
        for (k, v) in o.entries where keys.contains(k) {
            let p = docPointer(at, k)
            if let x = sizes.contains(k) ? size(v, at: p) : number(v, at: p) { out[k] = x }
        }
        return out
    }

    static func checkMagnitude(_ x: Double, maxMagnitude: Double) -> Double? {
        x.isFinite && abs(x) <= maxMagnitude ? (x == 0 ? 0 : x) : nil
    }

    static func magnitudeMessage(_ x: Double, maxMagnitude: Double) -> String {
        if x.isNaN { return "a number must not be NaN" }
        if x.isInfinite { return "a number must be finite (\(x < 0 ? "-" : "")1e400-style literals overflow to infinity)" }
        return "\(formatNumber(x)) is larger in magnitude than the limit \(formatNumber(maxMagnitude))"
    }
}

/// Id rules of the spec (section 1).
enum IDRules {
    static let maxLength = 128

    /// nil when `id` is valid, else why not. Neither view ids nor constraint ids may contain `.`
    /// (a `.` separates a view from its attribute in anchors).
    static func problem(with id: String, what: String) -> String? {
        // The common case: 1...maxLength ASCII id characters (for ASCII, bytes are scalars).
        let utf8 = id.utf8
        if !utf8.isEmpty && utf8.count <= maxLength
            && utf8.withContiguousStorageIfAvailable({ $0.allSatisfy(isIDByte) }) == true { return nil }
        if id.isEmpty { return "\(what) id must not be empty" }
        let scalars = id.unicodeScalars
        if scalars.count > maxLength {
            return "\(what) id is \(scalars.count) characters long; at most \(maxLength) are allowed"
        }
        if let bad = scalars.first(where: { !isIDScalar($0) }) {
            let shown = bad == "." ? "'.' (it separates a view from its attribute in anchors)" : "'\(bad)'"
            return "\(what) id '\(id)' contains \(shown); use letters, digits, '_', '-' and '#'"
        }
        return nil
    }

    static func isIDByte(_ b: UInt8) -> Bool {
        switch b {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
             UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "_"), UInt8(ascii: "-"), UInt8(ascii: "#"): return true
        default: return false
        }
    }

    static func isIDScalar(_ c: Unicode.Scalar) -> Bool {
        switch c {
        case "a"..."z", "A"..."Z", "0"..."9", "_", "-", "#": return true
        default: return false
        }
    }
}

/// Shortest readable rendering of a number for messages (`100` rather than `100.0`).
func formatNumber(_ x: Double) -> String {
    if x.isFinite, x == x.rounded(), abs(x) < 1e15 { return String(Int64(x)) }
    return String(x)
}
