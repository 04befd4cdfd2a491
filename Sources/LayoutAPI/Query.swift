import LayoutEngine

/// The query parameters the API understands: `coordinates=absolute|relative`, `strict=true|false`,
/// `frames=all|changed`. Unknown parameters are ignored; a parameter without `=` counts as
/// present with an empty value (`?strict` means `strict=true`); the last occurrence wins.
/// A known parameter with a value it does not define is a 400.
struct QueryOptions: Equatable, Sendable {
    var absolute = false
    var strict = false
    var allFrames = false

    var coordinates: Coordinates { absolute ? .absolute : .relative }

    struct Invalid: Error {
        var parameter: String
        var value: String
        var allowed: String
    }

    static func parse(_ query: String) -> Result<QueryOptions, Invalid> {
        var options = QueryOptions()
        for (name, value) in items(query) {
            let v = value.lowercased()
            switch name {
            case "coordinates":
                switch v {
                case "absolute": options.absolute = true
                case "relative": options.absolute = false
                default: return .failure(Invalid(parameter: name, value: value, allowed: "absolute, relative"))
                }
            case "strict":
                switch v {
                case "", "true", "1", "yes": options.strict = true
                case "false", "0", "no": options.strict = false
                default: return .failure(Invalid(parameter: name, value: value, allowed: "true, false"))
                }
            case "frames":
                switch v {
                case "all": options.allFrames = true
                case "changed": options.allFrames = false
                default: return .failure(Invalid(parameter: name, value: value, allowed: "all, changed"))
                }
            default:
                continue
            }
        }
        return .success(options)
    }

    /// `a=1&b&c=x%20y` → [(a, 1), (b, ""), (c, "x y")], percent-decoded, `+` read as a space.
    static func items(_ query: String) -> [(name: String, value: String)] {
        var out: [(String, String)] = []
        for part in query.utf8.split(separator: UInt8(ascii: "&")) {
            if let eq = part.firstIndex(of: UInt8(ascii: "=")) {
                out.append((percentDecode(part[..<eq]), percentDecode(part[part.index(after: eq)...])))
            } else {
                out.append((percentDecode(part[...]), ""))
            }
        }
        return out
    }

    /// Decodes `%XX` escapes and `+`; a malformed escape is kept as written; invalid UTF-8 is repaired.
    static func percentDecode(_ s: Substring.UTF8View.SubSequence) -> String {
        var out: [UInt8] = []
        out.reserveCapacity(s.count)
        var i = s.startIndex
        while i < s.endIndex {
            let c = s[i]
            if c == UInt8(ascii: "+") {
                out.append(0x20)
            } else if c == UInt8(ascii: "%"),
                      let j = s.index(i, offsetBy: 2, limitedBy: s.index(before: s.endIndex)),
                      let hi = hexValue(s[s.index(after: i)]), let lo = hexValue(s[j]) {
                out.append(hi << 4 | lo)
                i = j
            } else {
                out.append(c)
            }
            i = s.index(after: i)
        }
        return String(decoding: out, as: UTF8.self)
    }

    private static func hexValue(_ c: UInt8) -> UInt8? {
        switch c {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return c - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): return c - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): return c - UInt8(ascii: "A") + 10
        default: return nil
        }
    }
}
