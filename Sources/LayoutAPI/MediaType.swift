/// Content-Type checks.
enum MediaType {
    static let mergePatch = "application/merge-patch+json"
    static let json = "application/json"
    static let problem = "application/problem+json"

    /// The media types a PATCH accepts, for `Accept-Patch`.
    static let acceptPatch = "\(mergePatch), \(json)"

    /// The type/subtype of a Content-Type value, lowercased, without parameters (`; charset=utf-8`).
    static func essence(_ contentType: String) -> String {
        let main = contentType.split(separator: ";", maxSplits: 1, omittingEmptySubsequences: false).first ?? ""
        return main.trimmingASCIIWhitespace().lowercased()
    }

    /// True for `application/merge-patch+json` and `application/json` (any parameters, any case).
    /// A missing Content-Type is not accepted.
    static func isPatch(_ contentType: String?) -> Bool {
        guard let contentType else { return false }
        let e = essence(contentType)
        return e == mergePatch || e == json
    }
}

extension StringProtocol {
    func trimmingASCIIWhitespace() -> String {
        var s = Substring(self)
        while let f = s.first, f == " " || f == "\t" { s = s.dropFirst() }
        while let l = s.last, l == " " || l == "\t" { s = s.dropLast() }
        return String(s)
    }
}
