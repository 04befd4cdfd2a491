import Foundation

/// An IPv4 or IPv6 address, or a CIDR block of them (`10.0.0.5`, `10.0.0.0/8`, `fd00::/8`).
struct AddressBlock: Equatable, Sendable {
    /// 4 bytes (IPv4) or 16 (IPv6), the bits past `prefix` zero.
    let bytes: [UInt8]
    let prefix: Int

    init?(_ text: String) {
        let parts = text.split(separator: "/", maxSplits: 1, omittingEmptySubsequences: false)
        guard let address = AddressBlock.bytes(of: String(parts[0])) else { return nil }
        let bits = address.count * 8
        var prefix = bits
        if parts.count == 2 {
            guard let given = Int(parts[1]), (0...bits).contains(given), parts[1].allSatisfy({ $0.isASCII && $0.isNumber }) else { return nil }
            prefix = given
        }
        self.prefix = prefix
        self.bytes = AddressBlock.masked(address, prefix: prefix)
    }

    /// Whether `address` (bytes of the same family) is inside the block.
    func contains(_ address: [UInt8]) -> Bool {
        address.count == bytes.count && AddressBlock.masked(address, prefix: prefix) == bytes
    }

    /// The 4 or 16 bytes of a numeric address; an IPv4-mapped IPv6 address (`::ffff:10.0.0.5`, as
    /// a dual-stack socket reports IPv4 peers) as its IPv4 bytes. Nil for anything else (names too).
    static func bytes(of text: String) -> [UInt8]? {
        var v4 = in_addr()
        if inet_pton(AF_INET, text, &v4) == 1 {
            return withUnsafeBytes(of: &v4) { Array($0) }
        }
        var v6 = in6_addr()
        guard inet_pton(AF_INET6, text, &v6) == 1 else { return nil }
        let all = withUnsafeBytes(of: &v6) { Array($0) }
        if all[0..<10].allSatisfy({ $0 == 0 }) && all[10] == 0xFF && all[11] == 0xFF { return Array(all[12...]) }
        return all
    }

    private static func masked(_ address: [UInt8], prefix: Int) -> [UInt8] {
        var out = address
        for i in 0..<out.count {
            let keep = min(8, max(0, prefix - i * 8))
            out[i] &= keep == 8 ? 0xFF : UInt8(truncatingIfNeeded: 0xFF00 >> keep)
        }
        return out
    }
}

/// Which address the access log names as a request's client (setting `trustedProxies`).
///
/// `X-Forwarded-For` is anyone's to write: taken only when the peer is a configured proxy, and
/// read from its right end (the hop the proxy itself added) leftwards, past every address that is
/// a trusted proxy too; the first one that is not is the client. So a client cannot choose the
/// address logged for it by sending its own `X-Forwarded-For` through nginx (nginx appends the
/// address it saw: the rightmost untrusted entry is that one). A malformed entry stops the walk:
/// the last trusted hop is logged. Used on the event loop: no lookup, no allocation unless the
/// peer is a proxy.
struct TrustedProxies: Sendable {
    let blocks: [AddressBlock]

    init(_ entries: [String]) {
        blocks = entries.compactMap(AddressBlock.init)
    }

    func isTrusted(_ address: String) -> Bool {
        guard !blocks.isEmpty, let bytes = AddressBlock.bytes(of: address) else { return false }
        return blocks.contains { $0.contains(bytes) }
    }

    /// The client's address: the peer's, unless the peer is trusted and `forwardedFor` (every
    /// `X-Forwarded-For` value, in order) names another as above.
    func client(peer: String, forwardedFor: [String]) -> String {
        guard !forwardedFor.isEmpty, isTrusted(peer) else { return peer }
        let hops = forwardedFor.flatMap { $0.split(separator: ",") }.map { $0.trimmingCharacters(in: .whitespaces) }
        var client = peer
        for hop in hops.reversed() {
            guard AddressBlock.bytes(of: hop) != nil else { break }
            client = hop
            if !isTrusted(hop) { break }
        }
        return client
    }
}
