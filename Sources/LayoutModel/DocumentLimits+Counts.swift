import JSON

extension DocumentLimits {
    /// What `document` has beyond these limits' counts, as a sentence naming the setting to raise
    /// (`30 views, more than maxViews (20)`), or nil when it fits (or has no such members).
    ///
    /// The same counts the parser checks (`ViewParser` and `ConstraintsParser`: the entries of the
    /// top-level `views` and `constraints`, array or object), read without parsing the document: a
    /// session stored under larger limits (a node restarted with a lower `--max-views`, or another
    /// node's) is told apart from one that does not read back, cheaply, before it is woken.
    public func exceeded(by document: JSONValue) -> String? {
        func entries(_ member: String) -> Int {
            guard let value = document[member] else { return 0 }
            return value.objectValue?.count ?? value.arrayValue?.count ?? 0
        }
        var excess: [String] = []
        let views = entries("views"), constraints = entries("constraints")
        if views > maxViews { excess.append("\(views) views, more than maxViews (\(maxViews))") }
        if constraints > maxConstraints {
            excess.append("\(constraints) constraint entries, more than maxConstraints (\(maxConstraints))")
        }
        return excess.isEmpty ? nil : excess.joined(separator: " and ")
    }
}
