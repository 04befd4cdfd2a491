/// A few bytes of JSON formatted on the stack and appended to a `JSONWriter` at once.
///
/// Appending to the writer's array costs a call, a uniqueness check and a capacity check each
/// time, which for a frame (`{"x":…,"y":…,"width":…,"height":…}`: four numbers, five fixed
/// pieces) was most of the work of encoding it. A chunk writes through a raw pointer into a
/// buffer of known size and the writer appends it in one go.
public struct JSONChunk {
    /// The most bytes `number(_:)` or `integer(_:)` writes (`-2.2250738585072014e-308` is 24).
    public static let maxNumberLength = 32

    // Inlinable (with what it touches): a chunk is filled in a caller's hot loop in another
    // module, where a call per piece would cost as much as the appends it replaces.
    @usableFromInline let base: UnsafeMutablePointer<UInt8>
    @usableFromInline let capacity: Int
    @usableFromInline var count = 0

    /// How many bytes have been written.
    public var written: Int { count }

    @usableFromInline init(base: UnsafeMutablePointer<UInt8>, capacity: Int) {
        self.base = base
        self.capacity = capacity
    }

    /// Appends `text` as it is (no escaping).
    @inlinable @inline(__always)
    public mutating func raw(_ text: StaticString) {
        let n = text.utf8CodeUnitCount
        precondition(count + n <= capacity, "JSONChunk overflow")
        // Byte by byte: the pieces are a few bytes long, shorter than a call to memmove.
        text.withUTF8Buffer { utf8 in
            for k in 0..<n { base[count + k] = utf8[k] }
        }
        count += n
    }

    /// The most bytes `string(_:)` writes for `s`: every byte escaped as `\u00XX`, and quotes.
    @inlinable
    public static func maxStringLength(_ s: String) -> Int { 6 * s.utf8.count + 2 }

    /// Appends `s` quoted and escaped exactly as `JSONWriter.appendString` does.
    @inlinable
    public mutating func string(_ s: String) {
        precondition(count + Self.maxStringLength(s) <= capacity, "JSONChunk overflow")
        byte(0x22)
        // The usual string (an id) has nothing to escape: copied byte by byte in one pass over
        // its storage, without a copy of the string. At the first byte that needs escaping, it
        // starts again on the escaping path (nothing was counted yet).
        let plain: Bool? = s.utf8.withContiguousStorageIfAvailable { utf8 in
            let out = base + count
            for (k, c) in utf8.enumerated() {
                if c < 0x20 || c == 0x22 || c == 0x5C { return false }
                out[k] = c
            }
            count += utf8.count
            return true
        }
        if plain != true {
            for c in s.utf8 { escaped(c) }
        }
        byte(0x22)
    }

    @inlinable
    mutating func escaped(_ c: UInt8) {
        if c >= 0x20 && c != 0x22 && c != 0x5C {
            byte(c)
            return
        }
        byte(0x5C)  // backslash
        switch c {
        case 0x22: byte(0x22)
        case 0x5C: byte(0x5C)
        case 0x0A: byte(0x6E)  // n
        case 0x09: byte(0x74)  // t
        case 0x0D: byte(0x72)  // r
        case 0x08: byte(0x62)  // b
        case 0x0C: byte(0x66)  // f
        default:
            byte(0x75)  // u
            byte(0x30)
            byte(0x30)
            byte(Self.hexDigit(c >> 4))
            byte(Self.hexDigit(c & 0xF))
        }
    }

    @inlinable @inline(__always)
    static func hexDigit(_ v: UInt8) -> UInt8 { v < 10 ? 0x30 + v : 0x61 + v - 10 }

    /// Appends a number exactly as `JSONWriter.appendNumber` documents it.
    @inlinable @inline(__always)
    public mutating func number(_ d: Double) {
        precondition(count + Self.maxNumberLength <= capacity, "JSONChunk overflow")
        // Below 2^53 the conversion to Int64 truncates exactly and back is exact: equal means
        // integral (a comparison instead of a call to libm's trunc). NaN fails the first test.
        // Inlined for that case (most of a layout's numbers): a call cost as much as the digits.
        if d.magnitude < 9_007_199_254_740_992.0, case let i = Int64(d), Double(i) == d {
            if i < 0 { byte(0x2D) }
            decimal(i.magnitude)  // -0.0 becomes 0
        } else {
            fraction(d)
        }
    }

    /// `number` for a value that is not an integer below 2^53.
    @inlinable @inline(never)
    mutating func fraction(_ d: Double) {
        guard d.isFinite else {
            raw("null")
            return
        }
        if d.magnitude < 1e9, case let k = Self.roundedHalfAwayFromZero(d * 1000), k / 1000 == d {
            // At most three decimals (layouts are full of halves): k / 1000, divided in floating
            // point, is the double nearest to the decimal k/1000, which is therefore read back as
            // `d` exactly. Written without building a String.
            var m = Int64(k.magnitude)
            if d < 0 { byte(0x2D) }
            decimal(UInt64(m / 1000))
            m %= 1000
            byte(0x2E)
            var divisor: Int64 = 100
            while m > 0 {
                byte(0x30 + UInt8(m / divisor))
                m %= divisor
                divisor /= 10
            }
        } else {
            // Swift's description of a finite Double is the shortest round-trip form and is
            // valid JSON ("0.1", "1e-07", "1.5e+300", "9007199254740992.0").
            for c in d.description.utf8 { byte(c) }
        }
    }

    /// Appends an integer in decimal.
    @inlinable
    public mutating func integer(_ v: Int64) {
        precondition(count + 20 <= capacity, "JSONChunk overflow")
        if v < 0 { byte(0x2D) }
        decimal(v.magnitude)
    }

    /// Appends `v` in decimal. Below 10,000 (most of a layout's numbers) digit by digit without
    /// a loop.
    @inlinable @inline(__always)
    mutating func decimal(_ v: UInt64) {
        let out = base + count
        if v < 100 {
            if v < 10 {
                out[0] = 0x30 &+ UInt8(truncatingIfNeeded: v)
                count += 1
            } else {
                out[0] = 0x30 &+ UInt8(truncatingIfNeeded: v / 10)
                out[1] = 0x30 &+ UInt8(truncatingIfNeeded: v % 10)
                count += 2
            }
        } else if v < 10_000 {
            let high = v / 100, low = v % 100
            if v < 1000 {
                out[0] = 0x30 &+ UInt8(truncatingIfNeeded: high)
                out[1] = 0x30 &+ UInt8(truncatingIfNeeded: low / 10)
                out[2] = 0x30 &+ UInt8(truncatingIfNeeded: low % 10)
                count += 3
            } else {
                out[0] = 0x30 &+ UInt8(truncatingIfNeeded: high / 10)
                out[1] = 0x30 &+ UInt8(truncatingIfNeeded: high % 10)
                out[2] = 0x30 &+ UInt8(truncatingIfNeeded: low / 10)
                out[3] = 0x30 &+ UInt8(truncatingIfNeeded: low % 10)
                count += 4
            }
        } else {
            count += Self.writeDecimal(v, to: out)
        }
    }

    /// Writes `microseconds` as milliseconds with three decimals (`1235` → `1.235`) at `out` (room
    /// for 24 bytes); returns how many it wrote. `Server-Timing` and the access log write durations
    /// with it.
    @inlinable
    public static func writeMilliseconds(microseconds: UInt64, to out: UnsafeMutablePointer<UInt8>) -> Int {
        let n = writeDecimal(microseconds / 1000, to: out)
        let fraction = microseconds % 1000
        out[n] = UInt8(ascii: ".")
        out[n + 1] = 0x30 + UInt8(fraction / 100)
        out[n + 2] = 0x30 + UInt8(fraction / 10 % 10)
        out[n + 3] = 0x30 + UInt8(fraction % 10)
        return n + 4
    }

    /// Writes `value` in decimal at `out` (room for 20 digits); returns how many it wrote. The
    /// API writes its `ETag` and `Server-Timing` values with it too.
    @inlinable
    public static func writeDecimal(_ value: UInt64, to out: UnsafeMutablePointer<UInt8>) -> Int {
        var digitCount = 1
        var t = value
        while t >= 10 {
            t /= 10
            digitCount += 1
        }
        var magnitude = value
        var k = digitCount - 1
        repeat {
            out[k] = 0x30 + UInt8(truncatingIfNeeded: magnitude % 10)
            magnitude /= 10
            k -= 1
        } while magnitude > 0
        return digitCount
    }

    /// `x.rounded()` for |x| < 2^63 (a zero may come out +0 instead of -0, which `number`
    /// never sees: zero is integral), without libm's `round` call (without SSE4.1, `rounded()` is
    /// a call; this is a conversion and a compare). The engine rounds frame values with it too.
    @inlinable @inline(__always)
    public static func roundedHalfAwayFromZero(_ x: Double) -> Double {
        let i = Int64(x)  // truncates toward zero
        // Exact: below 2^52 the fraction is representable; above, x is already an integer.
        let fraction = x - Double(i)
        if fraction >= 0.5 { return Double(i + 1) }
        if fraction <= -0.5 { return Double(i - 1) }
        return Double(i)
    }

    /// Appends `text` as it is: bytes already in JSON form (a stored document).
    @inlinable
    public mutating func bytes(_ text: [UInt8]) {
        text.withUnsafeBufferPointer { bytes($0) }
    }

    /// Appends `text` as it is (bytes already in JSON form).
    @inlinable
    public mutating func bytes(_ text: UnsafeBufferPointer<UInt8>) {
        precondition(count + text.count <= capacity, "JSONChunk overflow")
        if let p = text.baseAddress { (base + count).update(from: p, count: text.count) }
        count += text.count
    }

    /// Appends `true` or `false`.
    @inlinable
    public mutating func bool(_ b: Bool) {
        if b { raw("true") } else { raw("false") }
    }

    /// The bytes `body` writes into a chunk of `capacity` bytes (an answer written piece by piece
    /// into a growing array paid a call and two checks per piece). `capacity` is a bound: more
    /// traps.
    ///
    /// The chunk is a temporary buffer (on the stack when it fits), copied once into an array of
    /// exactly the bytes written: `Array(unsafeUninitializedCapacity:)` allocates through an
    /// unspecialized runtime entry that looks up the array's metadata on every call (~550
    /// instructions, more than the copy), and a bound's spare bytes would stay with the answer.
    @inlinable
    public static func bytes(capacity: Int, _ body: (inout JSONChunk) -> Void) -> [UInt8] {
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: max(1, capacity)) { buffer in
            var chunk = JSONChunk(base: buffer.baseAddress!, capacity: capacity)
            body(&chunk)
            return Array(UnsafeBufferPointer(start: buffer.baseAddress!, count: chunk.count))
        }
    }

    @inlinable @inline(__always)
    mutating func byte(_ c: UInt8) {
        base[count] = c
        count += 1
    }
}

extension JSONWriter {
    /// Lets `body` write up to `capacity` bytes into a `JSONChunk`, then appends them.
    /// `capacity` must cover everything `body` writes (a number counts
    /// `JSONChunk.maxNumberLength`); more traps.
    @inlinable
    public mutating func appendChunk(capacity: Int, _ body: (inout JSONChunk) -> Void) {
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: capacity) { buffer in
            var chunk = JSONChunk(base: buffer.baseAddress!, capacity: capacity)
            body(&chunk)
            bytes.append(contentsOf: UnsafeBufferPointer(start: buffer.baseAddress!, count: chunk.count))
        }
    }
}
