import JSON

extension DocumentParser {
    /// The canonical form of a valid document, which `GET` returns and merge-patch edits: `views` and
    /// `constraints` as objects keyed by id, in document order. Array entries lose their `id` field
    /// (it becomes the key); constraints without one are keyed `#<index>` (0-based array index).
    /// An `id` field in a keyed entry (which must equal its key) is dropped as well. Everything else
    /// is kept as written, key order included.
    ///
    /// Meant for documents that `parse` accepts; on other input it does its best and never traps
    /// (entries it cannot key are left out).
    public static func canonicalize(_ json: JSONValue) -> JSONValue {
        guard case .object(var top) = json else { return json }
        if let views = top["views"] { top["views"] = .object(keyed(views, defaultID: { _ in nil })) }
        if let constraints = top["constraints"] {
            top["constraints"] = .object(keyed(constraints, defaultID: { "#\($0)" }))
        }
        return .object(top)
    }

    private static func keyed(_ value: JSONValue, defaultID: (Int) -> String?) -> JSONObject {
        var out = JSONObject()
        switch value {
        case .object(let o):
            for (key, entry) in o.entries { out[key] = withoutID(entry) }
        case .array(let a):
            for (i, entry) in a.enumerated() {
                guard let id = entry["id"]?.stringValue ?? defaultID(i), out[id] == nil else { continue }
                out[id] = withoutID(entry)
            }
        default:
            break
        }
        return out
    }

    private static func withoutID(_ entry: JSONValue) -> JSONValue {
        guard case .object(var o) = entry else { return entry }
        o["id"] = nil
        return .object(o)
    }
}
