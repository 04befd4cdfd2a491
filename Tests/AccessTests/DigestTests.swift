@testable import Access
import Primitives
import Testing

/// SHA-256 against FIPS 180-2's examples and HMAC-SHA256 against RFC 4231: the keys file and the
/// stream tokens depend on both being exactly right.
@Suite("Digests: SHA-256, HMAC-SHA256 and base64url")
struct DigestTests {
    static func hex(_ bytes: [UInt8]) -> String { Hex.encode(bytes) }
    static func bytes(_ hex: String) -> [UInt8] { Hex.decode(Substring(hex))! }

    @Test("SHA-256 gives the FIPS 180-2 digests of 'abc', the 448-bit message and one million 'a'")
    func fipsVectors() {
        #expect(Self.hex(SHA256.hash("abc".utf8)) == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        #expect(Self.hex(SHA256.hash("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq".utf8))
                == "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1")
        var h = SHA256()
        let thousand = [UInt8](repeating: UInt8(ascii: "a"), count: 1000)
        for _ in 0..<1000 { h.update(thousand) }
        #expect(Self.hex(h.finalize()) == "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0")
        #expect(Self.hex(SHA256.hash([UInt8]())) == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
    }

    @Test("SHA-256 pads right at the block edges (55, 56, 63 and 64 bytes), fed at once or byte by byte")
    func blockEdges() {
        // Digests of n 'a's from sha256sum.
        let expected = [
            55: "9f4390f8d30c2dd92ec9f095b65e2b9ae9b0a925a5258e241c9f1e910f734318",
            56: "b35439a4ac6f0948b6d6f9e3c6af0f5f590ce20f1bde7090ef7970686ec6738a",
            63: "7d3e74a05d7db15bce4ad9ec0658ea98e3f06eeecf16b4c6fff2da457ddc2f34",
            64: "ffe054fe7ae0cb6dc65c3af9b61d5209f439851db43d0ba5997337df154668eb",
        ]
        for (n, digest) in expected {
            let message = [UInt8](repeating: UInt8(ascii: "a"), count: n)
            #expect(Self.hex(SHA256.hash(message)) == digest, "\(n) bytes")
            var h = SHA256()
            for b in message { h.update([b]) }
            #expect(Self.hex(h.finalize()) == digest, "\(n) bytes, one at a time")
        }
    }

    @Test("HMAC-SHA256 gives RFC 4231's test cases 1 to 4, 6 and 7")
    func rfc4231() {
        let cases: [(key: [UInt8], data: [UInt8], mac: String)] = [
            ([UInt8](repeating: 0x0b, count: 20), Array("Hi There".utf8),
             "b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7"),
            (Array("Jefe".utf8), Array("what do ya want for nothing?".utf8),
             "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843"),
            ([UInt8](repeating: 0xaa, count: 20), [UInt8](repeating: 0xdd, count: 50),
             "773ea91e36800e46854db8ebd09181a72959098b3ef8c122d9635514ced565fe"),
            (Array(1...25), [UInt8](repeating: 0xcd, count: 50),
             "82558a389a443c0ea4cc819899f2083a85f0faa3e578f8077a2e3ff46729665b"),
            ([UInt8](repeating: 0xaa, count: 131), Array("Test Using Larger Than Block-Size Key - Hash Key First".utf8),
             "60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54"),
            ([UInt8](repeating: 0xaa, count: 131),
             Array("This is a test using a larger than block-size key and a larger than block-size data. The key needs to be hashed before being used by the HMAC algorithm.".utf8),
             "9b09ffa71b942fcb27635fbcd5b0e944bfdc63644f0713938a7f51535c3a35e2"),
        ]
        for (index, c) in cases.enumerated() {
            #expect(Self.hex(HMACSHA256.authenticationCode(key: c.key, message: c.data)) == c.mac, "case \(index)")
        }
    }

    @Test("base64url round-trips every length and refuses padding, other alphabets and stray bits")
    func base64url() {
        for n in 0..<40 {
            let bytes = (0..<n).map { UInt8(truncatingIfNeeded: $0 &* 37 &+ 250) }
            let text = Base64URL.encode(bytes)
            #expect(!text.contains("=") && !text.contains("+") && !text.contains("/"))
            #expect(Base64URL.decode(text) == bytes, "\(n) bytes")
        }
        #expect(Base64URL.encode(Array("hello?>".utf8)) == "aGVsbG8_Pg")
        #expect(Base64URL.decode("aGVsbG8_Pg==") == nil)
        #expect(Base64URL.decode("aGVsbG8/Pg") == nil)
        #expect(Base64URL.decode("aGVsbG8_Ph") == nil)  // the last character's low bits are not zero
        #expect(Base64URL.decode("a") == nil)
    }
}
