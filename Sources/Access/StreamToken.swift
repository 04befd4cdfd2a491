/// Short-lived, session-scoped tokens for what cannot send an Authorization header
/// (`EventSource`, `<img src>`): `lt1.<keyName>.<expires>.<mac>`, where mac is base64url of
/// HMAC-SHA256 keyed by the key's stored digest over `lt1\n<tenant>\n<session>\n<expires>\n<keyName>`.
///
/// Keyed by the digest in the keys file, so every node checks a token with no shared state, and
/// revoking the key (its record gone, or a new key under the same name) ends its tokens. The
/// token holds no key: a URL that carries it is good for one session, for minutes.
public enum StreamToken {
    static let version = "lt1"
    /// Longer than any token `issue` makes (a 64-character name, 19 digits, 43 of MAC).
    static let maxLength = 160

    /// A token of `record`'s key for `session` (its id as the client sees it), valid until
    /// `expires` (Unix seconds).
    public static func issue(for record: APIKeyRecord, session: String, expires: Int) -> String {
        let mac = code(record, session: session, expires: String(expires))
        return "\(version).\(record.name).\(expires).\(Base64URL.encode(mac))"
    }

    /// The record of the key that issued `token` for `session`, when it is well formed, not
    /// expired at `now` (Unix seconds), its key still in `lookup` with the same digest, and its
    /// MAC right (compared in constant time); nil otherwise.
    public static func verify(_ token: String, session: String, now: Int,
                              lookup: (String) -> APIKeyRecord?) -> APIKeyRecord? {
        guard token.utf8.count <= maxLength, token.hasPrefix(version + ".") else { return nil }
        // The name may hold dots; the expiry and the MAC cannot: split from the end.
        let parts = token.dropFirst(version.count + 1).split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count >= 3 else { return nil }
        let macText = parts[parts.count - 1]
        let expiresText = parts[parts.count - 2]
        let name = parts[0..<(parts.count - 2)].joined(separator: ".")
        // One text per expiry (no sign, no leading zero), so the MAC is over what was issued.
        guard !expiresText.isEmpty, expiresText.utf8.count <= 18,
              expiresText.utf8.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }),
              expiresText == "0" || !expiresText.hasPrefix("0"),
              let expires = Int(expiresText), now < expires,
              let mac = Base64URL.decode(String(macText)), mac.count == 32,
              let record = lookup(name), record.name == name else { return nil }
        guard constantTimeEquals(code(record, session: session, expires: String(expiresText)), mac) else { return nil }
        return record
    }

    private static func code(_ record: APIKeyRecord, session: String, expires: String) -> [UInt8] {
        let message = "\(version)\n\(record.tenant)\n\(session)\n\(expires)\n\(record.name)"
        return HMACSHA256.authenticationCode(key: record.digest, message: Array(message.utf8))
    }
}
