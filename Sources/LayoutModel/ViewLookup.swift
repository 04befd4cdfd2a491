/// A document's views by id: the view array itself plus an id → position index.
///
/// What the parsers and compilers look views up in. A `[String: View]` would copy every view
/// into its buckets (a `View` is about 250 bytes and a dictionary keeps a third of its buckets
/// empty: ~30 KiB for 50 views, kept by every session that validates patch members); this shares
/// the document's array and costs the index only.
public struct ViewLookup: Sendable {
    /// The views, in document order (a later duplicate id wins in lookups).
    public let all: [View]
    /// Id → position in `all`.
    public let index: [String: Int]

    /// - Parameter index: `views`' ids → position, when the caller already has it.
    public init(_ views: [View], index known: [String: Int]? = nil) {
        all = views
        if let known {
            index = known
        } else {
            var index = [String: Int](minimumCapacity: views.count)
            for i in views.indices { index[views[i].id] = i }
            self.index = index
        }
    }

    /// Views keyed by id (the key wins over the view's own `id`; for tests and small callers).
    public init(_ byID: [String: View]) {
        var views: [View] = [], index = [String: Int](minimumCapacity: byID.count)
        views.reserveCapacity(byID.count)
        for (id, v) in byID.sorted(by: { $0.key < $1.key }) {
            index[id] = views.count
            views.append(v)
        }
        self.init(views, index: index)
    }

    public subscript(id: String) -> View? {
        guard let i = index[id] else { return nil }
        return all[i]
    }

    /// The number of distinct ids.
    public var count: Int { index.count }
}

extension ViewLookup: ExpressibleByDictionaryLiteral {
    public init(dictionaryLiteral elements: (String, View)...) {
        self.init(Dictionary(elements, uniquingKeysWith: { _, later in later }))
    }
}
