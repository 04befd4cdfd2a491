/// What the next simplex pass must look at: the dual simplex's infeasible rows and the primal
/// simplex's candidates to enter. Operations push what they touched, so a pass never scans the
/// tableau for work.
struct SimplexQueues: Sendable {
    /// Restricted basic rows whose constant went negative (for the dual simplex).
    var infeasible = RowQueue()
    /// Non-basic symbols whose reduced cost may have turned negative (for the primal simplex),
    /// each listed once (`isCandidate`, indexed by symbol number).
    var candidates: [Int32] = []
    var isCandidate: [Bool] = []
}

/// The dual simplex's queue of restricted rows whose constant went negative: a binary max-heap of
/// symbol numbers, so rows leave highest symbol first whatever the order in which the (unordered)
/// columns found them. A resize of a 5,000-view grid keeps ~850 rows queued while it pivots
/// hundreds of times, so the sift loops work on the raw buffer.
struct RowQueue: Sendable {
    var items: [Int32] = []

    var isEmpty: Bool { items.isEmpty }

    mutating func removeAll() { items.removeAll(keepingCapacity: true) }

    mutating func push(_ s: Int32) {
        items.append(s)
        items.withUnsafeMutableBufferPointer { h in
            var i = h.count - 1
            while i > 0 {
                let p = (i - 1) >> 1
                if h[p] >= s { break }
                h[i] = h[p]
                i = p
            }
            h[i] = s
        }
    }

    mutating func pop() -> Int32? {
        guard let last = items.popLast() else { return nil }
        if items.isEmpty { return last }
        return items.withUnsafeMutableBufferPointer { h in
            let top = h[0]
            let n = h.count
            var i = 0
            while true {
                let l = 2 * i + 1
                if l >= n { break }
                var m = l
                if l + 1 < n && h[l + 1] > h[l] { m = l + 1 }
                if h[m] <= last { break }
                h[i] = h[m]
                i = m
            }
            h[i] = last
            return top
        }
    }
}
