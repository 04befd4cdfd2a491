import Access
import Testing

/// Bytes that count how many of them were read: what shows the comparison has no early exit.
final class ReadCounter: @unchecked Sendable {
    var reads = 0
}

struct CountedBytes: Collection {
    let bytes: [UInt8]
    let counter: ReadCounter
    var startIndex: Int { bytes.startIndex }
    var endIndex: Int { bytes.endIndex }
    func index(after i: Int) -> Int { i + 1 }
    subscript(position: Int) -> UInt8 {
        counter.reads += 1
        return bytes[position]
    }
}

@Suite("Constant-time comparison")
struct ConstantTimeTests {
    @Test("equal bytes are equal; a difference anywhere, or another length, is not")
    func answers() {
        let a: [UInt8] = (0..<32).map { UInt8($0 * 7) }
        #expect(constantTimeEquals(a, a))
        #expect(constantTimeEquals([], []))
        for i in a.indices {
            var b = a
            b[i] ^= 0x01
            #expect(!constantTimeEquals(a, b), "differs at \(i)")
            b[i] = a[i] ^ 0x80
            #expect(!constantTimeEquals(b, a), "differs at \(i), high bit")
        }
        #expect(!constantTimeEquals(a, Array(a.dropLast())))
        #expect(!constantTimeEquals(a, a + [0]))
        #expect(!constantTimeEquals([], [0]))
    }

    @Test("every byte of both sides is read, whether the first, the last or no byte differs (no early exit)")
    func readsEveryByte() {
        let a: [UInt8] = (0..<32).map { UInt8($0) }
        for differing in [nil, 0, 1, 16, 31] as [Int?] {
            var b = a
            if let differing { b[differing] ^= 0xff }
            let left = ReadCounter(), right = ReadCounter()
            let equal = constantTimeEquals(collection: CountedBytes(bytes: a, counter: left), CountedBytes(bytes: b, counter: right))
            #expect(equal == (differing == nil))
            #expect(left.reads == 32 && right.reads == 32, "difference at \(String(describing: differing)): read \(left.reads) and \(right.reads)")
        }
    }
}
