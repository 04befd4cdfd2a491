import Primitives
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
        query.split(separator: "&").map { part in
            guard let eq = part.firstIndex(of: "=") else { return (percentDecode(part, plusAsSpace: true), "") }
            return (percentDecode(part[..<eq], plusAsSpace: true),
                    percentDecode(part[part.index(after: eq)...], plusAsSpace: true))
        }
    }
}
