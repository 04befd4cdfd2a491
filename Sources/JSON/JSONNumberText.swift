/// The JSON number grammar (RFC 8259 §6) and its conversion to `Double`, in one place for
/// `JSONParser` and `JSONScanner`: both accept the same texts and read them as the same values.
enum JSONNumberText {
    enum Scan {
        /// The value and the offset just after the number.
        case number(Double, end: Int)
        /// What is wrong and where.
        case invalid(String, at: Int)
    }

    /// Reads the number that starts at `p[start]` (a digit or `-`), stopping at the first byte
    /// that cannot continue it. An out-of-range magnitude (`1e400`) is not an error: it reads as
    /// ±infinity (or ±0), for a validator to report where it is.
    @inline(__always)
    static func scan(_ p: UnsafePointer<UInt8>, _ n: Int, from start: Int) -> Scan {
        var j = start
        var negative = false
        if j < n && p[j] == minus {
            negative = true
            j += 1
        }
        @inline(__always) func digit(_ k: Int) -> UInt8? {
            guard k < n else { return nil }
            let d = p[k] &- zero
            return d < 10 ? d : nil
        }
        guard let first = digit(j) else { return .invalid("invalid number, expected a digit after '-'", at: j) }
        // Significant digits accumulated while they fit; beyond that the slow path decides.
        var mantissa: UInt64 = 0
        var significantDigits = 0
        var tooManyDigits = false
        if first == 0 {
            j += 1
            if digit(j) != nil { return .invalid("leading zeros are not allowed in numbers", at: start) }
        } else {
            while let d = digit(j) {
                if significantDigits < 19 {
                    mantissa = mantissa &* 10 &+ UInt64(d)
                    significantDigits += 1
                } else {
                    tooManyDigits = true
                }
                j += 1
            }
        }
        var fractionDigits = 0
        if j < n && p[j] == dot {
            j += 1
            guard digit(j) != nil else { return .invalid("invalid number, expected a digit after '.'", at: j) }
            while let d = digit(j) {
                if significantDigits < 19 {
                    mantissa = mantissa &* 10 &+ UInt64(d)
                    if mantissa != 0 { significantDigits += 1 }
                    fractionDigits += 1
                } else {
                    tooManyDigits = true
                }
                j += 1
            }
        }
        var exponent = 0
        if j < n && (p[j] == lowerE || p[j] == upperE) {
            j += 1
            var exponentNegative = false
            if j < n && (p[j] == plus || p[j] == minus) {
                exponentNegative = p[j] == minus
                j += 1
            }
            guard digit(j) != nil else { return .invalid("invalid number, expected a digit in the exponent", at: j) }
            while let d = digit(j) {
                if exponent < 1_000_000 { exponent = exponent * 10 + Int(d) }
                j += 1
            }
            if exponentNegative { exponent = -exponent }
        }

        if !tooManyDigits {
            // Exact fast paths: an integer mantissa converts with one correct rounding, and a
            // mantissa ≤ 2^53 times or divided by an exact power of ten ≤ 10^22 is one
            // correctly rounded operation on exact operands.
            let scale = exponent - fractionDigits
            var result: Double? = nil
            if scale == 0 {
                result = Double(mantissa)
            } else if mantissa <= (1 << 53) {
                if scale > 0 && scale <= 22 {
                    result = Double(mantissa) * exactPowersOfTen[scale]
                } else if scale < 0 && scale >= -22 {
                    result = Double(mantissa) / exactPowersOfTen[-scale]
                }
            }
            if let result { return .number(negative ? -result : result, end: j) }
        }
        return .number(slowNumber(p + start, count: j - start), end: j)
    }

    @inline(never)
    static func slowNumber(_ start: UnsafePointer<UInt8>, count: Int) -> Double {
        let text = String(decoding: UnsafeBufferPointer(start: start, count: count), as: UTF8.self)
        // The text was validated against the JSON grammar, which Double's parser accepts;
        // out-of-range magnitudes give ±infinity (or ±0).
        return Double(text) ?? .nan
    }

    private static let minus = UInt8(ascii: "-"), plus = UInt8(ascii: "+"), dot = UInt8(ascii: ".")
    private static let zero = UInt8(ascii: "0"), lowerE = UInt8(ascii: "e"), upperE = UInt8(ascii: "E")

    /// Exact powers of ten representable in a Double (10^0 ... 10^22).
    private static let exactPowersOfTen: [Double] = [
        1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11,
        1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22,
    ]
}
