/// HMAC-SHA256 (RFC 2104), for the stream tokens (`StreamToken`). Checked against RFC 4231.
public enum HMACSHA256 {
    private static let blockSize = 64

    /// The 32-byte authentication code of `message` under `key`.
    public static func authenticationCode(key: [UInt8], message: [UInt8]) -> [UInt8] {
        // A key longer than a block is hashed first (RFC 2104 section 2).
        var block = key.count > blockSize ? SHA256.hash(key) : key
        block += [UInt8](repeating: 0, count: blockSize - block.count)
        var inner = SHA256()
        inner.update(block.map { $0 ^ 0x36 })
        inner.update(message)
        var outer = SHA256()
        outer.update(block.map { $0 ^ 0x5c })
        outer.update(inner.finalize())
        return outer.finalize()
    }
}
