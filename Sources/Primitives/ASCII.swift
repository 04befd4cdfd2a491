/// ASCII case-insensitive equality (header names, media types), without allocating.
///
/// Inlinable for its first line: a header list searched by name mostly holds names of other
/// lengths, and those are told apart where the call is, without a call or a retain.
@inlinable
public func asciiCaseInsensitiveEquals(_ a: String, _ b: String) -> Bool {
    guard a.utf8.count == b.utf8.count else { return false }  // O(1) for native strings
    return asciiCaseInsensitiveEqualsSameLength(a, b)
}

@usableFromInline
func asciiCaseInsensitiveEqualsSameLength(_ a: String, _ b: String) -> Bool {
    // Compare the bytes in place (iterating two UTF8Views in step costs several times more, and
    // every request looks up a few headers by name). withUTF8 copies only a string not stored as
    // UTF-8, which the transport never hands over.
    var a = a, b = b
    return a.withUTF8 { xs in b.withUTF8 { ys in asciiCaseInsensitiveEquals(xs, ys) } }
}

/// ASCII case-insensitive equality of two byte buffers.
public func asciiCaseInsensitiveEquals(_ x: UnsafeBufferPointer<UInt8>, _ y: UnsafeBufferPointer<UInt8>) -> Bool {
    guard x.count == y.count else { return false }
    for (c, d) in zip(x, y) where c != d {
        let lc = (c >= 0x41 && c <= 0x5A) ? c | 0x20 : c
        let ld = (d >= 0x41 && d <= 0x5A) ? d | 0x20 : d
        if lc != ld { return false }
    }
    return true
}
