extension JSONValue {
    /// The value a JSON Pointer (RFC 6901) refers to, or nil when the pointer is malformed
    /// or refers to nothing.
    ///
    /// `""` is the whole value; otherwise the pointer is `/`-separated reference tokens in
    /// which `~1` means `/` and `~0` means `~`. An array index must be `0` or a decimal
    /// without leading zeros; `-` (past the end) refers to nothing.
    public func value(atPointer pointer: String) -> JSONValue? {
        let utf8 = pointer.utf8
        if utf8.isEmpty { return self }
        guard utf8.first == 0x2F else { return nil }  // '/'
        var current = self
        for rawToken in utf8.dropFirst().split(separator: 0x2F, omittingEmptySubsequences: false) {
            switch current {
            case .object(let object):
                guard let key = Self.unescapePointerToken(rawToken), let member = object[key] else { return nil }
                current = member
            case .array(let array):
                guard let index = Self.pointerArrayIndex(rawToken), index < array.count else { return nil }
                current = array[index]
            default:
                return nil
            }
        }
        return current
    }

    private static func unescapePointerToken(_ token: Substring.UTF8View.SubSequence) -> String? {
        guard token.contains(0x7E) else { return String(decoding: token, as: UTF8.self) }  // '~'
        var out: [UInt8] = []
        out.reserveCapacity(token.count)
        var it = token.makeIterator()
        while let c = it.next() {
            if c == 0x7E {
                switch it.next() {
                case 0x30: out.append(0x7E)  // ~0 -> ~
                case 0x31: out.append(0x2F)  // ~1 -> /
                default: return nil
                }
            } else {
                out.append(c)
            }
        }
        return String(decoding: out, as: UTF8.self)
    }

    private static func pointerArrayIndex(_ token: Substring.UTF8View.SubSequence) -> Int? {
        guard let first = token.first, token.count <= 18 else { return nil }
        if first == 0x30 && token.count > 1 { return nil }  // leading zero
        var value = 0
        for c in token {
            guard c >= 0x30 && c <= 0x39 else { return nil }
            value = value * 10 + Int(c - 0x30)
        }
        return value
    }
}
