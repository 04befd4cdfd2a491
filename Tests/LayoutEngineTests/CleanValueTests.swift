@testable import LayoutEngine
import JSON
import Testing

@Suite("Frame values snap to 1e-9 exactly as with Double.rounded()")
struct CleanValueTests {
    /// The definition `clean` had before its rounding avoided libm.
    static func reference(_ v: Double) -> Double {
        var r = v
        if abs(v) < 1e9 { r = (v * 1e9).rounded() / 1e9 }
        return r == 0 ? 0 : r
    }

    @Test("edge values and random ones, bit for bit")
    func matchesRounded() {
        var values: [Double] = [0, -0.0, 0.5e-9, -0.5e-9, 1.5e-9, -2.5e-9, 0.49999999999e-9, 1e-12, -1e-12,
                                99.99999999999997, 100.00000000000003, -99.99999999999997, 1e9, -1e9,
                                999_999_999.9999999, -999_999_999.9999999, 4_503_599.627370496, 1e300,
                                .infinity, -.infinity, .nan, .leastNonzeroMagnitude, 1.0 / 3, -2.0 / 3]
        var rng = SystemRandomNumberGenerator()
        for _ in 0..<20000 {
            values.append(Double.random(in: -1e9...1e9, using: &rng))
            values.append(Double.random(in: -1000...1000, using: &rng))
            values.append(Double(Int.random(in: -4_000_000...4_000_000, using: &rng)) / 4096)
            values.append(Double(Int.random(in: -1_000_000...1_000_000, using: &rng)) / 1000 + 1e-12)
            values.append(Double(bitPattern: UInt64.random(in: 0...UInt64.max, using: &rng)))
        }
        for v in values {
            let a = LayoutSystem.clean(v), b = Self.reference(v)
            #expect(a.bitPattern == b.bitPattern || (a.isNaN && b.isNaN), "\(v)")
        }
        for x: Double in [0.5, 1.5, 2.5, -0.5, -1.5, 4503599627370495.5, 4503599627370497, -9.2e18, 9.2e18] {
            #expect(JSONChunk.roundedHalfAwayFromZero(x) == x.rounded(), "\(x)")
        }
    }
}
