/// Whether `a` and `b` hold the same bytes, in a time that depends on their lengths only.
///
/// Every byte of both is read and XOR-accumulated, with no exit before the end: a comparison that
/// stopped at the first difference would tell a client, by its timing, how many leading bytes of
/// a guess are right. The lengths are not secret (a digest is always 32 bytes), so different
/// lengths answer false at once. `@inline(never)`: inlined into a caller that already knows one
/// operand, the optimizer could be tempted to specialize the loop.
@inline(never)
public func constantTimeEquals(_ a: [UInt8], _ b: [UInt8]) -> Bool {
    constantTimeEquals(collection: a, b)
}

/// The same comparison over any collections of bytes: the array version runs this code, and the
/// tests run it over a wrapper that counts the bytes read (every byte, even after a difference).
@inline(never)
public func constantTimeEquals<A: Collection, B: Collection>(collection a: A, _ b: B) -> Bool
where A.Element == UInt8, B.Element == UInt8 {
    guard a.count == b.count else { return false }
    var difference: UInt8 = 0
    for (x, y) in zip(a, b) { difference |= x ^ y }
    return difference == 0
}
