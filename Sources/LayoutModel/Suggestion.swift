/// "Did you mean": the nearest known word to a misspelt one (issue 30).
///
/// Rule (docs/document.md §8): case-insensitive Damerau-Levenshtein distance (optimal string
/// alignment: insert, delete, substitute, swap two neighbours), at most max(1, length / 3) of the
/// longer of the two words; the nearest wins, ties go to the candidate that comes first (document
/// order for view ids, the listed order for fields and names). A suggestion only adds to a
/// problem's message: it never changes which documents are valid.
public enum Suggestion {
    /// The candidate nearest to `word` within the distance rule, or nil.
    public static func nearest<S: Sequence>(_ word: String, among candidates: S) -> String? where S.Element == String {
        let w = Array(word.lowercased().unicodeScalars)
        // Longer words would be nothing a person typed: not worth the quadratic walk.
        guard !w.isEmpty, w.count <= 128 else { return nil }
        var best: (word: String, distance: Int)?
        for candidate in candidates where candidate != word {
            let c = Array(candidate.lowercased().unicodeScalars)
            let limit = max(1, max(w.count, c.count) / 3)
            guard abs(w.count - c.count) <= limit, c.count <= 128 else { continue }
            let d = distance(w, c)
            if d <= limit, d < (best?.distance ?? Int.max) { best = (candidate, d) }
        }
        return best?.word
    }

    /// " (did you mean 'x'?)" for a message, or "" when there is no suggestion.
    public static func phrase(_ suggestion: String?) -> String {
        suggestion.map { "; did you mean '\($0)'?" } ?? ""
    }

    /// Optimal string alignment distance.
    static func distance(_ a: [Unicode.Scalar], _ b: [Unicode.Scalar]) -> Int {
        if a.isEmpty { return b.count }
        if b.isEmpty { return a.count }
        var previous2 = [Int](repeating: 0, count: b.count + 1)
        var previous = Array(0...b.count)
        var current = [Int](repeating: 0, count: b.count + 1)
        for i in 1...a.count {
            current[0] = i
            for j in 1...b.count {
                let cost = a[i - 1] == b[j - 1] ? 0 : 1
                var d = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + cost)
                if i > 1, j > 1, a[i - 1] == b[j - 2], a[i - 2] == b[j - 1] { d = min(d, previous2[j - 2] + 1) }
                current[j] = d
            }
            (previous2, previous, current) = (previous, current, previous2)
        }
        return previous[b.count]
    }
}

extension ViewLookup {
    /// The view id nearest to a misspelt one (document order breaks ties).
    public func suggestion(for id: String) -> String? {
        Suggestion.nearest(id, among: all.lazy.map(\.id))
    }
}
