import JSON
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A JSON merge patch (RFC 7396) applied to a member's canonical text, without parsing it into
/// a tree, merging and writing the tree back.
///
/// The canonical text is what `JSONWriter` wrote (compact, keys escaped its way), so the result
/// is byte for byte `JSONWriter.serialize(parse(text).applyingMergePatch(patch))`: members keep
/// their place, a `null` removes one, new members go at the end in patch order, an object merges
/// into an object member recursively. A PATCH that changes one constant of a constraint entry
/// used to parse the entry, merge, compare the trees and write the result again; now the text is
/// spliced, compared as bytes and kept as it is (it is still parsed once, for validation, unless
/// `NumberPatch` applies).
enum MemberText {
    /// The merged text, or nil when `text` is not an object as `JSONWriter` writes them or the
    /// patch is not `isPlain`: the caller then merges trees.
    static func merge(_ text: ArraySlice<UInt8>, _ patch: JSONObject) -> [UInt8]? {
        guard isPlain(patch) else { return nil }
        var w = JSONWriter(capacity: text.count + 32)
        let merged: Bool = text.withUnsafeBufferPointer { merge($0, patch, into: &w) }
        return merged ? w.bytes : nil
    }

    /// Appends `text` merged with `patch` to `w`; false when `text` is not a compact object.
    /// Members left as they are go in as runs of the original text (commas included).
    private static func merge(_ text: UnsafeBufferPointer<UInt8>, _ patch: JSONObject,
                              into w: inout JSONWriter) -> Bool {
        w.bytes.append(UInt8(ascii: "{"))
        var wroteMember = false
        var run: Range<Int>? = nil  // unchanged members waiting to be copied
        func flush() {
            guard let r = run else { return }
            if wroteMember { w.bytes.append(UInt8(ascii: ",")) }
            w.bytes.append(contentsOf: UnsafeBufferPointer(rebasing: text[r]))
            wroteMember = true
            run = nil
        }
        var taken = 0  // bit k: patch key k was in the text (`isPlain`: at most 64 keys)
        let wellFormed = forEachMember(text) { key, value in
            let start = key.lowerBound - 1  // the key's opening quote
            let k = patchKey(matching: UnsafeBufferPointer(rebasing: text[key]), in: patch)
            if k < 0 {
                run = (run?.lowerBound ?? start)..<value.upperBound
                return true
            }
            taken |= 1 << k
            flush()
            let change = patch.values[k]
            if change.isNull { return true }
            if wroteMember { w.bytes.append(UInt8(ascii: ",")) }
            w.bytes.append(contentsOf: UnsafeBufferPointer(rebasing: text[start..<value.lowerBound]))  // "key":
            wroteMember = true
            if case .object(let inner) = change, text[value.lowerBound] == UInt8(ascii: "{") {
                return merge(UnsafeBufferPointer(rebasing: text[value]), inner, into: &w)
            }
            w.write(JSONValue.null.applyingMergePatch(change))
            return true
        }
        guard wellFormed else { return false }
        flush()
        for (k, (key, change)) in patch.entries.enumerated() where taken & (1 << k) == 0 {
            if change.isNull { continue }
            if wroteMember { w.bytes.append(UInt8(ascii: ",")) }
            w.appendKey(key)
            w.write(JSONValue.null.applyingMergePatch(change))
            wroteMember = true
        }
        w.bytes.append(UInt8(ascii: "}"))
        return true
    }

    /// Whether a member's new text is its stored text, byte for byte (lengths first; the
    /// generic `elementsEqual` compared element by element through the collection protocols).
    static func same(_ text: [UInt8], _ stored: ArraySlice<UInt8>) -> Bool {
        guard text.count == stored.count else { return false }
        return text.withUnsafeBytes { a in
            stored.withUnsafeBytes { b in a.count == 0 || memcmp(a.baseAddress!, b.baseAddress!, a.count) == 0 }
        }
    }

    /// Calls `body` with each member's key (the bytes between its quotes) and value, as ranges
    /// of `text`, in order. False when `text` is not one compact object, or when `body` returns
    /// false (which stops the walk).
    static func forEachMember(_ text: UnsafeBufferPointer<UInt8>,
                              _ body: (_ key: Range<Int>, _ value: Range<Int>) -> Bool) -> Bool {
        let n = text.count
        guard n >= 2, text[0] == UInt8(ascii: "{"), text[n - 1] == UInt8(ascii: "}") else { return false }
        var i = 1
        while i < n - 1 {
            guard text[i] == UInt8(ascii: "\""), let keyEnd = skipString(text, from: i), keyEnd < n,
                  text[keyEnd] == UInt8(ascii: ":"), let valueEnd = skipValue(text, from: keyEnd + 1),
                  body((i + 1)..<(keyEnd - 1), (keyEnd + 1)..<valueEnd) else { return false }
            i = valueEnd
            if text[i] == UInt8(ascii: ",") {
                i += 1
                guard i < n - 1 else { return false }
            } else if i != n - 1 {
                return false
            }
        }
        return true
    }

    /// The position of the patch key whose bytes are `content` (a key between its quotes); -1
    /// for none. (`isPlain` made sure no patch key is escaped in the text.)
    private static func patchKey(matching content: UnsafeBufferPointer<UInt8>, in patch: JSONObject) -> Int {
        for (k, key) in patch.keys.enumerated() {
            var key = key
            let equal = key.withUTF8 { utf8 in
                guard utf8.count == content.count else { return false }
                for j in 0..<utf8.count where utf8[j] != content[j] { return false }
                return true
            }
            if equal { return k }
        }
        return -1
    }

    /// Whether the text merge applies: at most 64 keys per object (one bit each), none that the
    /// writer escapes (its text would differ from its bytes), and every number finite (an
    /// infinity, from `1e400`, would be written as `null` where validation must see it).
    static func isPlain(_ patch: JSONObject) -> Bool {
        patch.count <= 64
            && patch.keys.allSatisfy { key in !key.utf8.contains { $0 < 0x20 || $0 == 0x22 || $0 == 0x5C } }
            && patch.values.allSatisfy { value in
                if case .object(let inner) = value { return isPlain(inner) }
                return isWritable(value)
            }
    }

    /// Whether `JSONWriter` writes `v` as a value that parses back equal (every number finite).
    static func isWritable(_ v: JSONValue) -> Bool {
        switch v {
        case .number(let d): return d.isFinite
        case .array(let a): return a.allSatisfy(isWritable)
        case .object(let o): return o.values.allSatisfy(isWritable)
        case .null, .bool, .string: return true
        }
    }

    /// The index after the string that starts (with its quote) at `start`.
    private static func skipString(_ text: UnsafeBufferPointer<UInt8>, from start: Int) -> Int? {
        var i = start + 1
        while i < text.count {
            switch text[i] {
            case UInt8(ascii: "\\"): i += 2
            case UInt8(ascii: "\""): return i + 1
            default: i += 1
            }
        }
        return nil
    }

    /// The index after the value that starts at `start` (a compact value: no whitespace).
    private static func skipValue(_ text: UnsafeBufferPointer<UInt8>, from start: Int) -> Int? {
        guard start < text.count else { return nil }
        switch text[start] {
        case UInt8(ascii: "\""):
            return skipString(text, from: start)
        case UInt8(ascii: "{"), UInt8(ascii: "["):
            var depth = 0
            var i = start
            while i < text.count {
                switch text[i] {
                case UInt8(ascii: "\""):
                    guard let next = skipString(text, from: i) else { return nil }
                    i = next
                    continue
                case UInt8(ascii: "{"), UInt8(ascii: "["):
                    depth += 1
                case UInt8(ascii: "}"), UInt8(ascii: "]"):
                    depth -= 1
                    if depth == 0 { return i + 1 }
                default:
                    break
                }
                i += 1
            }
            return nil
        default:
            // A number or a literal runs to the next separator.
            var i = start
            while i < text.count, text[i] != UInt8(ascii: ","), text[i] != UInt8(ascii: "}"),
                  text[i] != UInt8(ascii: "]") {
                i += 1
            }
            return i > start ? i : nil
        }
    }
}
