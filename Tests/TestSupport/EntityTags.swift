/// Sessions answer `ETag: "<revision>-<generation>"` (docs/http.md): the generation is new each
/// time an id is created, so tests compare the revision and check the tag's form.
extension Optional where Wrapped == String {
    /// The revision of a session's `ETag`; nil unless the tag is exactly `"<digits>-<digits>"`.
    public var etagRevision: Int? {
        guard let tag = self, tag.count > 2, tag.first == "\"", tag.last == "\"" else { return nil }
        let parts = tag.dropFirst().dropLast().split(separator: "-", omittingEmptySubsequences: false)
        guard parts.count == 2, parts.allSatisfy({ !$0.isEmpty && $0.allSatisfy(\.isASCII) && $0.allSatisfy(\.isNumber) }),
              UInt64(parts[1]) != nil else { return nil }
        return Int(parts[0])
    }
}
