/// A forward reader over JSON text, for a caller that expects one small shape (a PATCH's
/// `{"constraints": {ID: {"constant": N}}}`) and wants its few values without building a tree.
///
/// Each step either consumes what the caller expects (after any whitespace) and says so, or
/// consumes nothing and answers false or nil; the caller then gives up and reads the text with
/// `JSONParser`, which also says what is wrong with it. What a step accepts is what
/// `JSONParser` accepts for that token, and a number reads as the same `Double`
/// (`JSONNumberText`); strings are accepted only in their plain form (printable ASCII, no
/// escape), whose bytes are the string itself.
public struct JSONScanner {
    private let p: UnsafePointer<UInt8>
    private let n: Int
    /// The offset of the next byte to read.
    public private(set) var offset = 0

    /// A scanner over `bytes`, which must outlive it.
    public init(_ bytes: UnsafeBufferPointer<UInt8>) {
        // An empty buffer may have no base address: read nothing from a stand-in.
        p = bytes.baseAddress.map { UnsafePointer($0) } ?? JSONScanner.nothing
        n = bytes.count
    }

    nonisolated(unsafe) private static let nothing: UnsafePointer<UInt8> = {
        let byte = UnsafeMutablePointer<UInt8>.allocate(capacity: 1)
        byte.initialize(to: 0)
        return UnsafePointer(byte)
    }()

    private mutating func skipWhitespace() {
        while offset < n {
            switch p[offset] {
            case 0x20, 0x0A, 0x0D, 0x09: offset += 1
            default: return
            }
        }
    }

    /// Consumes `byte` (a structural character such as `{` or `:`), after whitespace.
    public mutating func consume(_ byte: UInt8) -> Bool {
        skipWhitespace()
        guard offset < n, p[offset] == byte else { return false }
        offset += 1
        return true
    }

    /// Consumes a string of printable ASCII without escapes, after whitespace, and returns its
    /// content (between the quotes); nil for any other string or token.
    public mutating func plainString() -> UnsafeBufferPointer<UInt8>? {
        skipWhitespace()
        guard offset < n, p[offset] == 0x22 else { return nil }
        var j = offset + 1
        while j < n {
            let c = p[j]
            if c == 0x22 {
                let content = UnsafeBufferPointer(start: p + offset + 1, count: j - offset - 1)
                offset = j + 1
                return content
            }
            if c == 0x5C || c < 0x20 || c >= 0x80 { return nil }
            j += 1
        }
        return nil
    }

    /// Consumes a string whose content is exactly `expected` (plain, as `plainString`).
    public mutating func consumeKey(_ expected: StaticString) -> Bool {
        let start = offset
        guard let content = plainString(), content.hasBytes(of: expected) else {
            offset = start
            return false
        }
        return true
    }

    /// Consumes a number, after whitespace, and returns its value; nil (consuming nothing) when
    /// the next token is not a number that `JSONParser` would accept.
    public mutating func number() -> Double? {
        skipWhitespace()
        guard offset < n, p[offset] == UInt8(ascii: "-") || (p[offset] &- UInt8(ascii: "0")) < 10 else { return nil }
        guard case .number(let value, let end) = JSONNumberText.scan(p, n, from: offset) else { return nil }
        offset = end
        return value
    }

    /// Whether only whitespace is left.
    public mutating func isAtEnd() -> Bool {
        skipWhitespace()
        return offset == n
    }
}

extension UnsafeBufferPointer<UInt8> {
    /// Whether these are exactly the UTF-8 bytes of `text`, compared byte by byte: the generic
    /// `elementsEqual` / `starts(with:)` over two sequences cost a few hundred instructions for a
    /// short key or path prefix, on every request.
    @inlinable
    public func hasBytes(of text: StaticString) -> Bool {
        count == text.utf8CodeUnitCount && hasPrefix(text)
    }

    /// Whether these bytes start with the UTF-8 bytes of `text`.
    @inlinable
    public func hasPrefix(_ text: StaticString) -> Bool {
        let n = text.utf8CodeUnitCount
        guard count >= n else { return false }
        let t = text.utf8Start
        for i in 0..<n where self[i] != t[i] { return false }
        return true
    }
}
