/// Decodes `%XX` escapes (and `+` as a space when asked). Malformed escapes are kept as written;
/// bytes that do not form UTF-8 become U+FFFD.
public func percentDecode<S: StringProtocol>(_ text: S, plusAsSpace: Bool = false) -> String {
    let utf8 = text.utf8
    // Most texts have nothing to decode (every request path goes through here): a byte search
    // for each of the two characters over the contiguous bytes (through the view's iterator it
    // cost ~25 instructions a byte).
    func contains(_ byte: UInt8) -> Bool {
        utf8.withContiguousStorageIfAvailable { $0.contains(byte) } ?? utf8.contains(byte)
    }
    guard contains(UInt8(ascii: "%")) || (plusAsSpace && contains(UInt8(ascii: "+"))) else {
        return String(text)
    }
    var bytes: [UInt8] = []
    bytes.reserveCapacity(utf8.count)
    var index = utf8.startIndex
    while index != utf8.endIndex {
        let byte = utf8[index]
        if byte == UInt8(ascii: "%") {
            let first = utf8.index(after: index)
            if first != utf8.endIndex {
                let second = utf8.index(after: first)
                if second != utf8.endIndex, let high = hexValue(utf8[first]), let low = hexValue(utf8[second]) {
                    bytes.append(high << 4 | low)
                    index = utf8.index(after: second)
                    continue
                }
            }
            bytes.append(byte)
        } else if plusAsSpace && byte == UInt8(ascii: "+") {
            bytes.append(UInt8(ascii: " "))
        } else {
            bytes.append(byte)
        }
        index = utf8.index(after: index)
    }
    return String(decoding: bytes, as: UTF8.self)
}

@inline(__always)
func hexValue(_ c: UInt8) -> UInt8? {
    switch c {
    case UInt8(ascii: "0")...UInt8(ascii: "9"): return c - UInt8(ascii: "0")
    case UInt8(ascii: "a")...UInt8(ascii: "f"): return c - UInt8(ascii: "a") + 10
    case UInt8(ascii: "A")...UInt8(ascii: "F"): return c - UInt8(ascii: "A") + 10
    default: return nil
    }
}
