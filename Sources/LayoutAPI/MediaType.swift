/// Content-Type checks.
enum MediaType {
    static let mergePatch = "application/merge-patch+json"
    static let json = "application/json"
    static let problem = "application/problem+json"

    /// The media types a PATCH accepts, for `Accept-Patch`.
    static let acceptPatch = "\(mergePatch), \(json)"

    /// True for `application/merge-patch+json` and `application/json` (any parameters, any case).
    /// A missing Content-Type is not accepted.
    static func isPatch(_ contentType: String?) -> Bool {
        guard var contentType else { return false }
        // Every PATCH asks this: the exact common spellings first, without building strings.
        if contentType == mergePatch || contentType == json { return true }
        return contentType.withUTF8 { bytes in
            let e = essence(bytes)
            return e.elementsEqual(mergePatch.utf8) || e.elementsEqual(json.utf8)
        }
    }

    /// The type/subtype's bytes (before any `;` parameters, without surrounding blanks), with
    /// ASCII letters lowercased.
    private static func essence(_ bytes: UnsafeBufferPointer<UInt8>) -> [UInt8] {
        var end = bytes.firstIndex(of: UInt8(ascii: ";")) ?? bytes.count
        var start = 0
        while start < end, bytes[start] == 0x20 || bytes[start] == 0x09 { start += 1 }
        while end > start, bytes[end - 1] == 0x20 || bytes[end - 1] == 0x09 { end -= 1 }
        return bytes[start..<end].map { $0 >= 0x41 && $0 <= 0x5A ? $0 + 0x20 : $0 }
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
