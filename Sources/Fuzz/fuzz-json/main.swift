// fuzz-json: the project's JSON parser (Sources/JSON) against Foundation's JSONSerialization.
//
// For every input:
// - the parser never crashes (ASan, bounds checks);
// - an accepted value, written by JSONWriter and parsed again, gives the same value (writer round trip);
// - input Foundation accepts (with .fragmentsAllowed) is accepted with the same values (numbers compared as
//   doubles, strings by Unicode scalars, objects as dictionaries), except the deliberate differences that
//   JSONParser.swift documents, each excused below by the parser's own error;
// - input the parser accepts is accepted by Foundation too, with the same values, except where the value holds
//   a number too large for a Double (the parser gives ±infinity, documented; Foundation refuses it).
import Foundation
import FuzzSupport
import JSON

runFuzzer { bytes in
    let ours: Result<JSONValue, JSONParseError>
    do throws(JSONParseError) {
        ours = .success(try JSONParser.parse(bytes))
    } catch {
        ours = .failure(error)
    }
    let theirs = try? JSONSerialization.jsonObject(with: Data(bytes), options: [.fragmentsAllowed])

    switch (ours, theirs) {
    case (.success(let value), _):
        // The writer round trip (non-finite numbers are written as null, so they are left out).
        if value.isFinite {
            let written = JSONWriter.serialize(value)
            let again = try? JSONParser.parse(written)
            fuzzCheck(again == value, "written value does not parse back the same: \(String(decoding: written, as: UTF8.self))")
        }
        if case .number(let d) = value { exactNumber(d, bytes) }
        guard let theirs else {
            // Documented: a number too large for a Double is ±infinity here; Foundation refuses it.
            fuzzCheck(!value.isFinite, "Foundation refuses what the parser accepts: \(JSONWriter.string(value))")
            return
        }
        fuzzCheck(same(value, theirs), "different values: ours \(JSONWriter.string(value)), Foundation's \(theirs)")
    case (.failure(let error), .some(let theirs)):
        fuzzCheck(isDocumentedDifference(error, bytes),
                  "the parser refuses (\(error)) what Foundation accepts as \(theirs)")
    case (.failure, nil):
        break
    }
}

/// Input the parser refuses on purpose although Foundation takes it (JSONParser.swift's documentation).
func isDocumentedDifference(_ error: JSONParseError, _ bytes: UnsafeRawBufferPointer) -> Bool {
    // Foundation takes the last of duplicate keys; the parser rejects them (strict RFC 8259 objects; keys are
    // compared as Swift strings, so canonically equivalent keys are duplicates too).
    if error.message.hasPrefix("duplicate key") { return true }
    // Trailing commas (Foundation on Linux takes `[1,]` and `{"a":1,}`; RFC 8259 does not).
    if error.message.hasPrefix("trailing comma") { return true }
    // Nesting deeper than maxDepth (128 by default; Foundation allows 512).
    if error.message.hasPrefix("nesting deeper than") { return true }
    // A byte order mark (Foundation skips it), and UTF-16/UTF-32 input, which Foundation detects by its zero
    // bytes or BOM: the parser reads UTF-8 only.
    if error.message.hasPrefix("a byte order mark") { return true }
    if bytes.contains(0) || bytes.starts(with: [0xFE, 0xFF]) || bytes.starts(with: [0xFF, 0xFE]) { return true }
    return false
}

/// Same value: numbers as doubles (Foundation's NSNumber or Decimal), booleans, null, strings by scalars,
/// arrays element by element, objects as dictionaries.
func same(_ ours: JSONValue, _ theirs: Any) -> Bool {
    switch ours {
    case .null:
        return theirs is NSNull
    case .bool(let b):
        return foundationBool(theirs) == b
    case .number(let d):
        guard foundationBool(theirs) == nil, let n = theirs as? NSNumber else { return false }
        if n is NSDecimalNumber {
            // Foundation keeps a number with more digits than a Double holds (an integer beyond UInt64, a long
            // mantissa) as a Decimal, whose conversion to Double is not correctly rounded: 1.1e-15 off for
            // `12567777700…002049638241884472402E+5` (found by this fuzzer). A relative 1e-13 is allowed there; the
            // parser's own rounding is checked exactly against Swift's Double(String) (`exactNumber`).
            return abs(n.doubleValue - d) <= 1e-13 * abs(d)
        }
        return n.doubleValue == d
    case .string(let s):
        guard let t = theirs as? String else { return false }
        return Array(s.unicodeScalars) == Array(t.unicodeScalars)
    case .array(let a):
        guard let t = theirs as? [Any], t.count == a.count else { return false }
        return zip(a, t).allSatisfy { same($0, $1) }
    case .object(let o):
        guard let t = theirs as? [String: Any], t.count == o.count else { return false }
        return o.entries.allSatisfy { key, value in
            guard let other = t[key] else { return false }
            return same(value, other)
        }
    }
}

/// Foundation's `true`/`false`: a Swift Bool, or a boolean NSNumber (objCType "c"); nil for anything else.
func foundationBool(_ x: Any) -> Bool? {
    if type(of: x) == Bool.self { return x as? Bool }
    if let n = x as? NSNumber, String(cString: n.objCType) == "c" { return n.boolValue }
    return nil
}

extension JSONValue {
    /// No ±infinity anywhere in the value.
    var isFinite: Bool {
        switch self {
        case .number(let d): return d.isFinite
        case .array(let a): return a.allSatisfy(\.isFinite)
        case .object(let o): return o.values.allSatisfy(\.isFinite)
        default: return true
        }
    }
}

/// A number alone (with JSON whitespace around it) parses to the correctly rounded Double, as Swift's
/// Double(String) (strtod) gives it, ±infinity beyond the range included.
func exactNumber(_ d: Double, _ bytes: UnsafeRawBufferPointer) {
    let whitespace: Set<UInt8> = [0x20, 0x09, 0x0A, 0x0D]
    let text = String(decoding: bytes.drop { whitespace.contains($0) }.reversed().drop { whitespace.contains($0) }
                        .reversed(), as: UTF8.self)
    guard let expected = Double(text) else { fuzzFailure("Double(String) refuses the JSON number \(text)") }
    fuzzCheck(d == expected, "\(text) parsed as \(d), correctly rounded \(expected)")
}
