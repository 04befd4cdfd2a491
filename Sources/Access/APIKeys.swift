#if canImport(Glibc)
import Glibc
#endif

/// Making keys and the digest the keys file stores of them.
///
/// A key is `lk_` and 32 bytes from the kernel's random source (256 bits) in base64url: 46
/// characters. The file stores SHA-256 of the key, not a slow password hash (bcrypt, argon2):
/// a slow hash protects secrets of low entropy from guessing, and 256 random bits cannot be
/// guessed; it would only cost milliseconds on every request (docs/operations.md "API keys").
public enum APIKeys {
    /// The prefix of every key: it makes a key recognizable (secret scanners, a key pasted
    /// where a name or a hash belongs) and is never a valid start of anything else here.
    public static let prefix = "lk_"

    /// A new key: `lk_` and 43 base64url characters of 32 random bytes.
    public static func generate() -> String {
        prefix + Base64URL.encode(randomBytes(32))
    }

    /// SHA-256 of the key's UTF-8 bytes: what the keys file stores and what a request's key is
    /// hashed to before it is looked up.
    public static func digest(of key: String) -> [UInt8] {
        SHA256.hash(key.utf8)
    }

    /// `count` bytes (at most 256) from getrandom(2), through glibc's getentropy(3) (Swift's
    /// Glibc module does not declare getrandom itself): it blocks only until the kernel's pool
    /// was first seeded and never returns weak bytes. There is no fallback: a key made of
    /// anything less must never be printed, so a failure stops the process.
    static func randomBytes(_ count: Int) -> [UInt8] {
        precondition(count <= 256, "getentropy gives at most 256 bytes at once")
        var bytes = [UInt8](repeating: 0, count: count)
        let status = bytes.withUnsafeMutableBytes { getentropy($0.baseAddress!, count) }
        if status != 0 { fatalError("getrandom(2) failed (errno \(errno)): no key can be made") }
        return bytes
    }
}
