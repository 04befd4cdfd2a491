// The directions a degenerate vertex leaves open, as a cone's generators.
//
// At an optimal vertex, the non-basic symbols with a zero reduced cost at every level can move
// without changing any objective. Each may be held back by degenerate restricted rows (a slack or
// error row at zero must not go negative) and basic dummies (a required equality must hold):
// moving a single symbol can be blocked where moving two together is not (x - y == 40 with
// x + y <= 40 tight: neither moves alone, both move down together). The directions that stay
// feasible form a polyhedral cone; `FreeCone` finds a set of vectors that generates it, by the
// double description method (Motzkin): start from the orthant of the symbols' signs and cut it
// by one row at a time. A linear function of the solution (a view's x, its width) is constant on
// the cone exactly when it is zero on every generator, which is what the ambiguity check asks.

/// A cone in the space of some non-basic symbols' moves, kept as generating vectors.
struct FreeCone {
    /// Each generator: a move of every symbol (by position), the largest magnitude 1.
    private(set) var generators: [[Double]]
    /// More generators than `limit` were needed: the cone was not cut further.
    private(set) var overflowed = false

    /// The most generators kept (the method can grow quadratically per row; layouts need a few),
    /// and the most symbols a cone is computed for.
    static let limit = 512
    static let symbolLimit = 64

    /// The cone of all moves: a restricted symbol (slack, error) only upwards, an external one
    /// either way. More than `symbolLimit` symbols: `overflowed` from the start.
    init(restricted: [Bool]) {
        generators = []
        guard restricted.count <= Self.symbolLimit else {
            overflowed = true
            return
        }
        for (i, onlyUp) in restricted.enumerated() {
            var e = [Double](repeating: 0, count: restricted.count)
            e[i] = 1
            generators.append(e)
            if !onlyUp {
                e[i] = -1
                generators.append(e)
            }
        }
    }

    /// Keeps the moves with `row · move >= 0` (`== 0` when `equality`).
    ///
    /// Generators on the right side stay; each pair of one on the right side and one on the
    /// wrong side gives their combination on the row's boundary. Without the adjacency test of
    /// the full method some of those are redundant; duplicates are dropped. When the result could
    /// hold more than `limit` generators the cone is left as it was and `overflowed` set.
    mutating func cut(_ row: [Double], equality: Bool) {
        guard !overflowed else { return }
        var positive: [([Double], Double)] = [], negative: [([Double], Double)] = []
        var next: [[Double]] = []
        for g in generators {
            let v = Self.dot(row, g)
            if v > Tolerance.zero {
                positive.append((g, v))
                if !equality { next.append(g) }
            } else if v < -Tolerance.zero {
                negative.append((g, v))
            } else {
                next.append(g)
            }
        }
        // Bounded before the pairs are made: their number is the product of the two sides.
        if next.count + positive.count * negative.count > Self.limit {
            overflowed = true
            return
        }
        for (p, vp) in positive {
            for (n, vn) in negative {
                // vp > 0 > vn: vp·n − vn·p is on the boundary (row · it = vp·vn − vn·vp = 0).
                var c = [Double](repeating: 0, count: p.count)
                for k in c.indices { c[k] = vp * n[k] - vn * p[k] }
                if let unit = Self.normalized(c) { next.append(unit) }
            }
        }
        generators = Self.withoutDuplicates(next)
    }

    private static func dot(_ a: [Double], _ b: [Double]) -> Double {
        var s = 0.0
        for k in a.indices { s += a[k] * b[k] }
        return s
    }

    /// `v` scaled to a largest magnitude of 1, its tiny entries dropped; nil for a zero vector.
    private static func normalized(_ v: [Double]) -> [Double]? {
        let m = v.reduce(0) { max($0, abs($1)) }
        guard m > Tolerance.zero else { return nil }
        return v.map { abs($0) / m < Tolerance.zero ? 0 : $0 / m }
    }

    /// `vs` without repeats (compared to within `Tolerance.zero`, through a set of rounded entries: one pass).
    private static func withoutDuplicates(_ vs: [[Double]]) -> [[Double]] {
        var seen = Set<[Int64]>()
        var out: [[Double]] = []
        for v in vs where seen.insert(v.map { Int64(($0 / Tolerance.zero).rounded()) }).inserted {
            out.append(v)
        }
        return out
    }
}
