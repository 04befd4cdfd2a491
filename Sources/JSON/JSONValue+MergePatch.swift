extension JSONValue {
    /// The result of applying `patch` to this value as a JSON Merge Patch (RFC 7396).
    ///
    /// - A patch that is not an object replaces the target.
    /// - An object patch turns a non-object target into `{}` first; then each member with a
    ///   `null` value removes that key, and each other member is merged recursively into the
    ///   target's member of the same name (a missing member merges into `{}`-or-replace, so
    ///   nulls nested in a new object are dropped).
    /// - Keys already in the target keep their position; new keys are appended in patch order.
    public func applyingMergePatch(_ patch: JSONValue) -> JSONValue {
        guard case .object(let patchObject) = patch else { return patch }
        var result = objectValue ?? JSONObject()
        for (key, patchMember) in patchObject.entries {
            if patchMember.isNull {
                result[key] = nil
            } else {
                result[key] = (result[key] ?? .null).applyingMergePatch(patchMember)
            }
        }
        return .object(result)
    }
}
