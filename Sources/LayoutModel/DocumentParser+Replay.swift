import JSON

extension DocumentParser {
    /// The canonical document that `patches` (JSON merge patches, in order) make of `canonical`
    /// (compact canonical JSON text), by the API's rule for a PATCH: each patch merged into the
    /// canonical document, the result canonicalised; written compactly, as sessions keep it. How a
    /// stored session's snapshot and patches become its document again (the session store's
    /// replay, `layoutd store compact`).
    public static func replay(_ canonical: [UInt8], patches: [[UInt8]]) throws(JSONParseError) -> [UInt8] {
        var value = try JSONParser.parse(canonical, maxDepth: 1024)
        for patch in patches {
            value = canonicalize(value.applyingMergePatch(try JSONParser.parse(patch, maxDepth: 1024)))
        }
        return JSONWriter.serialize(value)
    }
}
