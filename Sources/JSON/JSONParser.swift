/// A JSON syntax error, with the position of the offending byte.
///
/// `line` and `column` are 1-based; `column` counts bytes from the start of the line
/// (a multi-byte character counts as several columns). `offset` is the 0-based byte offset
/// into the input.
public struct JSONParseError: Error, Equatable, Sendable, CustomStringConvertible {
    public var message: String
    public var line: Int
    public var column: Int
    public var offset: Int

    public init(message: String, line: Int, column: Int, offset: Int) {
        self.message = message
        self.line = line
        self.column = column
        self.offset = offset
    }

    /// For example "expected ',' or '}' at line 3, column 12".
    public var description: String { "\(message) at line \(line), column \(column)" }
}

/// A strict RFC 8259 JSON parser over UTF-8 bytes.
///
/// - Object key order is kept; a duplicate key in one object is an error naming the key.
/// - Rejected: trailing commas, comments, leading zeros, a byte order mark, unescaped control
///   characters in strings, invalid UTF-8, lone surrogate escapes, trailing characters after the
///   value, empty input, and nesting of arrays/objects deeper than `maxDepth`.
/// - Numbers are parsed to the correctly rounded `Double`. A number too large for a `Double`
///   (such as `1e400`) is not a syntax error: it becomes `.number(±.infinity)`, for the
///   document validator to report with a JSON pointer.
///
/// The parser is iterative (an explicit stack, no recursion), so no input can overflow the
/// call stack while parsing. `maxDepth` bounds the depth of the returned tree; keep it modest,
/// because comparing, writing and releasing a `JSONValue` tree are recursive.
public enum JSONParser {
    public static func parse(
        _ bytes: UnsafeRawBufferPointer, maxDepth: Int = 128
    ) throws(JSONParseError) -> JSONValue {
        guard let base = bytes.baseAddress, bytes.count > 0 else {
            throw JSONParseError(message: "empty input, expected a JSON value", line: 1, column: 1, offset: 0)
        }
        var parser = Parser(
            base: base.assumingMemoryBound(to: UInt8.self), count: bytes.count, maxDepth: maxDepth)
        defer { parser.releaseStacks() }
        return try parser.parseDocument()
    }

    public static func parse(_ bytes: [UInt8], maxDepth: Int = 128) throws(JSONParseError) -> JSONValue {
        let result: Result<JSONValue, JSONParseError> = bytes.withUnsafeBytes { raw in
            do throws(JSONParseError) {
                return .success(try parse(raw, maxDepth: maxDepth))
            } catch {
                return .failure(error)
            }
        }
        return try result.get()
    }

    public static func parse(_ text: String, maxDepth: Int = 128) throws(JSONParseError) -> JSONValue {
        var text = text
        let result: Result<JSONValue, JSONParseError> = text.withUTF8 { buffer in
            do throws(JSONParseError) {
                return .success(try parse(UnsafeRawBufferPointer(buffer), maxDepth: maxDepth))
            } catch {
                return .failure(error)
            }
        }
        return try result.get()
    }
}

// MARK: - Implementation

private enum ASCII {
    static let quote: UInt8 = 0x22  // "
    static let backslash: UInt8 = 0x5C  // \
    static let slash: UInt8 = 0x2F  // /
    static let comma: UInt8 = 0x2C  // ,
    static let colon: UInt8 = 0x3A  // :
    static let openBracket: UInt8 = 0x5B  // [
    static let closeBracket: UInt8 = 0x5D  // ]
    static let openBrace: UInt8 = 0x7B  // {
    static let closeBrace: UInt8 = 0x7D  // }
    static let minus: UInt8 = 0x2D  // -
    static let plus: UInt8 = 0x2B  // +
    static let dot: UInt8 = 0x2E  // .
    static let zero: UInt8 = 0x30  // 0
    static let nine: UInt8 = 0x39  // 9
    static let lowerE: UInt8 = 0x65  // e
    static let upperE: UInt8 = 0x45  // E
    static let space: UInt8 = 0x20
    static let tab: UInt8 = 0x09
    static let newline: UInt8 = 0x0A
    static let carriageReturn: UInt8 = 0x0D
}

/// A stack in manually managed memory, so that when a container closes its members are
/// moved (not copied, then destroyed) into their final, exactly sized array.
private struct MoveStack<Element> {
    private(set) var base: UnsafeMutablePointer<Element>
    private(set) var count = 0
    private var capacity: Int

    init(capacity: Int) {
        base = .allocate(capacity: capacity)
        self.capacity = capacity
    }

    @inline(__always)
    mutating func push(_ element: Element) {
        if count == capacity { grow() }
        (base + count).initialize(to: element)
        count += 1
    }

    @inline(never)
    private mutating func grow() {
        let newCapacity = capacity * 2
        let newBase = UnsafeMutablePointer<Element>.allocate(capacity: newCapacity)
        newBase.moveInitialize(from: base, count: count)
        base.deallocate()
        base = newBase
        capacity = newCapacity
    }

    /// Moves the elements from `start` to the top out into an array.
    mutating func popArray(from start: Int) -> [Element] {
        let k = count - start
        guard k > 0 else { return [] }
        let source = base + start
        count = start
        // reserveCapacity + append, not Array(unsafeUninitializedCapacity:): that initializer
        // allocates through an unspecialized runtime entry that looks up the array's generic
        // metadata on every call, which cost more than the rest of parsing a small patch.
        var out: [Element] = []
        out.reserveCapacity(k)
        for j in 0..<k { out.append((source + j).move()) }
        return out
    }

    /// The top element (the stack must not be empty).
    @inline(__always)
    var top: Element { base[count - 1] }

    @inline(__always)
    subscript(i: Int) -> Element { base[i] }

    /// Drops the top element.
    @inline(__always)
    mutating func removeLast() {
        count -= 1
        (base + count).deinitialize(count: 1)
    }

    /// Drops the elements from `start` to the top.
    @inline(__always)
    mutating func truncate(to start: Int) {
        (base + start).deinitialize(count: count - start)
        count = start
    }

    mutating func release() {
        base.deinitialize(count: count)
        base.deallocate()
        count = 0
        capacity = 0
    }
}

private struct Frame {
    var isObject: Bool
    /// Where this container's members start in the parser's value stack.
    var valuesStart: Int
    /// Where this object's keys start in the parser's key stack.
    var keysStart: Int
}

private struct Parser {
    let p: UnsafePointer<UInt8>
    let n: Int
    let maxDepth: Int
    var i = 0

    /// Members of all open containers, innermost last; a container's members are moved
    /// out into one exactly-sized array when it closes.
    var valueStack: MoveStack<JSONValue>
    var keyStack: MoveStack<String>
    /// Byte offset of each key in `keyStack`, for duplicate-key errors.
    var keyOffsets: MoveStack<Int>
    var frames: MoveStack<Frame>
    /// Reused buffer for decoding strings that contain escapes.
    var scratch: [UInt8] = []

    init(base: UnsafePointer<UInt8>, count: Int, maxDepth: Int) {
        p = base
        n = count
        self.maxDepth = maxDepth
        // Small inputs (a merge patch) get small stacks: an allocation of a kilobyte or more
        // makes glibc consolidate its fast bins, which costs more than parsing a short patch.
        let members = Swift.min(64, Swift.max(4, count / 16))
        valueStack = MoveStack(capacity: members)
        keyStack = MoveStack(capacity: Swift.max(4, members / 2))
        keyOffsets = MoveStack(capacity: Swift.max(4, members / 2))
        frames = MoveStack(capacity: Swift.min(16, Swift.max(4, members / 4)))
    }

    /// Destroys what is left on the stacks (after an error) and frees them.
    mutating func releaseStacks() {
        valueStack.release()
        keyStack.release()
        keyOffsets.release()
        frames.release()
    }

    @inline(__always)
    func peek() -> UInt8 { i < n ? p[i] : 0 }

    @inline(__always)
    mutating func skipWhitespace() {
        while i < n {
            let c = p[i]
            if c == ASCII.space || c == ASCII.newline || c == ASCII.carriageReturn || c == ASCII.tab {
                i += 1
            } else {
                return
            }
        }
    }

    // MARK: Document and containers

    mutating func parseDocument() throws(JSONParseError) -> JSONValue {
        if n >= 3 && p[0] == 0xEF && p[1] == 0xBB && p[2] == 0xBF {
            throw error("a byte order mark is not allowed", at: 0)
        }
        skipWhitespace()
        if i >= n { throw error("empty input, expected a JSON value", at: i) }

        var value: JSONValue
        parseValue: while true {
            // A value starts at `i` (whitespace already skipped).
            switch peek() {
            case ASCII.openBrace:
                try open(isObject: true)
                i += 1
                skipWhitespace()
                if peek() == ASCII.closeBrace {
                    i += 1
                    frames.removeLast()
                    value = .object(JSONObject())
                } else {
                    try parseKeyAndColon()
                    continue parseValue
                }
            case ASCII.openBracket:
                try open(isObject: false)
                i += 1
                skipWhitespace()
                if peek() == ASCII.closeBracket {
                    i += 1
                    frames.removeLast()
                    value = .array([])
                } else {
                    continue parseValue
                }
            case ASCII.quote:
                value = .string(try parseString())
            case ASCII.minus, ASCII.zero...ASCII.nine:
                value = .number(try parseNumber())
            case 0x74:  // t
                try expectLiteral("true")
                value = .bool(true)
            case 0x66:  // f
                try expectLiteral("false")
                value = .bool(false)
            case 0x6E:  // n
                try expectLiteral("null")
                value = .null
            default:
                throw unexpected(expecting: "a JSON value")
            }

            // A complete value: hand it to the enclosing container, closing containers as
            // long as their closing bracket follows.
            while true {
                guard frames.count > 0, case let top = frames.top else {
                    skipWhitespace()
                    if i < n {
                        if p[i] == ASCII.slash { throw error("comments are not allowed", at: i) }
                        throw error("unexpected characters after the JSON value", at: i)
                    }
                    return value
                }
                valueStack.push(value)
                skipWhitespace()
                let c = peek()
                if top.isObject {
                    if c == ASCII.comma {
                        let comma = i
                        i += 1
                        skipWhitespace()
                        if peek() == ASCII.closeBrace { throw error("trailing comma in object", at: comma) }
                        try parseKeyAndColon()
                        continue parseValue
                    } else if c == ASCII.closeBrace {
                        i += 1
                        value = try closeObject(top)
                    } else {
                        throw unexpected(expecting: "',' or '}'")
                    }
                } else {
                    if c == ASCII.comma {
                        let comma = i
                        i += 1
                        skipWhitespace()
                        if peek() == ASCII.closeBracket { throw error("trailing comma in array", at: comma) }
                        continue parseValue
                    } else if c == ASCII.closeBracket {
                        i += 1
                        value = closeArray(top)
                    } else {
                        throw unexpected(expecting: "',' or ']'")
                    }
                }
            }
        }
    }

    @inline(__always)
    mutating func open(isObject: Bool) throws(JSONParseError) {
        if frames.count >= maxDepth {
            throw error("nesting deeper than the maximum depth of \(maxDepth)", at: i)
        }
        frames.push(Frame(isObject: isObject, valuesStart: valueStack.count, keysStart: keyStack.count))
    }

    /// Parses `"key"` and the following `:` and skips whitespace after it.
    mutating func parseKeyAndColon() throws(JSONParseError) {
        guard peek() == ASCII.quote else { throw unexpected(expecting: "a string key") }
        let keyOffset = i
        let key = try parseString()
        keyStack.push(key)
        keyOffsets.push(keyOffset)
        skipWhitespace()
        guard peek() == ASCII.colon else { throw unexpected(expecting: "':' after object key") }
        i += 1
        skipWhitespace()
    }

    mutating func closeArray(_ frame: Frame) -> JSONValue {
        frames.removeLast()
        return .array(valueStack.popArray(from: frame.valuesStart))
    }

    mutating func closeObject(_ frame: Frame) throws(JSONParseError) -> JSONValue {
        frames.removeLast()
        let ks = frame.keysStart
        let count = keyStack.count - ks
        let k = keyStack.base + ks
        var index: [String: Int]? = nil
        if count > JSONObject.indexThreshold {
            var d = [String: Int](minimumCapacity: count)
            for j in 0..<count where d.updateValue(j, forKey: k[j]) != nil {
                throw duplicateKey(at: ks + j)
            }
            index = d
        } else if count > 1 {
            for j in 1..<count {
                for m in 0..<j where k[m] == k[j] {
                    throw duplicateKey(at: ks + j)
                }
            }
        }
        let keys = keyStack.popArray(from: ks)
        keyOffsets.truncate(to: ks)
        let values = valueStack.popArray(from: frame.valuesStart)
        return .object(JSONObject(uniqueKeys: keys, values: values, index: index))
    }

    func duplicateKey(at stackIndex: Int) -> JSONParseError {
        error("duplicate key \(JSONWriter.string(.string(keyStack.base[stackIndex]))) in object",
              at: keyOffsets[stackIndex])
    }

    // MARK: Literals

    mutating func expectLiteral(_ word: StaticString) throws(JSONParseError) {
        let count = word.utf8CodeUnitCount
        let w = word.utf8Start
        if i + count <= n {
            var k = 0
            while k < count && p[i + k] == w[k] { k += 1 }
            if k == count {
                i += count
                return
            }
        }
        throw error("invalid literal, expected '\(word)'", at: i)
    }

    // MARK: Strings

    /// Parses a string starting at the opening quote at `i`.
    @inline(__always)
    mutating func parseString() throws(JSONParseError) -> String {
        let start = i + 1
        var j = start
        // Fast path: printable ASCII without escapes, decoded straight from the input.
        while j < n {
            let c = p[j]
            if c == ASCII.quote {
                i = j + 1
                return String(decoding: UnsafeBufferPointer(start: p + start, count: j - start), as: UTF8.self)
            }
            if c == ASCII.backslash || c < 0x20 || c >= 0x80 { break }
            j += 1
        }
        return try parseStringSlow(start: start, resumingAt: j)
    }

    @inline(never)
    mutating func parseStringSlow(start: Int, resumingAt resume: Int) throws(JSONParseError) -> String {
        var j = resume
        var hasEscapes = false
        /// Start of the bytes not yet copied into `scratch` (when there are escapes).
        var runStart = start
        while true {
            guard j < n else { throw error("unterminated string", at: start - 1) }
            let c = p[j]
            if c == ASCII.quote {
                i = j + 1
                if !hasEscapes {
                    return String(decoding: UnsafeBufferPointer(start: p + start, count: j - start), as: UTF8.self)
                }
                scratch.append(contentsOf: UnsafeBufferPointer(start: p + runStart, count: j - runStart))
                return String(decoding: scratch, as: UTF8.self)
            } else if c == ASCII.backslash {
                if !hasEscapes {
                    hasEscapes = true
                    scratch.removeAll(keepingCapacity: true)
                }
                scratch.append(contentsOf: UnsafeBufferPointer(start: p + runStart, count: j - runStart))
                j = try decodeEscape(at: j)
                runStart = j
            } else if c < 0x20 {
                throw error("unescaped control character \(hexScalar(UInt32(c))) in string", at: j)
            } else if c < 0x80 {
                j += 1
            } else {
                j = try validateUTF8Sequence(at: j)
            }
        }
    }

    /// Decodes the escape whose backslash is at `j` into `scratch`; returns the index after it.
    mutating func decodeEscape(at j: Int) throws(JSONParseError) -> Int {
        guard j + 1 < n else { throw error("unterminated string", at: j) }
        let e = p[j + 1]
        let byte: UInt8
        switch e {
        case ASCII.quote: byte = ASCII.quote
        case ASCII.backslash: byte = ASCII.backslash
        case ASCII.slash: byte = ASCII.slash
        case 0x62: byte = 0x08  // \b
        case 0x66: byte = 0x0C  // \f
        case 0x6E: byte = 0x0A  // \n
        case 0x72: byte = 0x0D  // \r
        case 0x74: byte = 0x09  // \t
        case 0x75:  // \u
            let unit = try hex4(at: j + 2, escapeAt: j)
            var scalarValue = UInt32(unit)
            var next = j + 6
            if unit >= 0xD800 && unit <= 0xDBFF {
                guard next + 1 < n && p[next] == ASCII.backslash && p[next + 1] == 0x75 else {
                    throw error("lone surrogate \\u\(hex4String(unit)) in string (a high surrogate must be followed by a \\u low surrogate)", at: j)
                }
                let low = try hex4(at: next + 2, escapeAt: next)
                guard low >= 0xDC00 && low <= 0xDFFF else {
                    throw error("lone surrogate \\u\(hex4String(unit)) in string (followed by \\u\(hex4String(low)), not a low surrogate)", at: j)
                }
                scalarValue = 0x10000 + ((UInt32(unit) - 0xD800) << 10) + (UInt32(low) - 0xDC00)
                next += 6
            } else if unit >= 0xDC00 && unit <= 0xDFFF {
                throw error("lone surrogate \\u\(hex4String(unit)) in string (a low surrogate without a high surrogate before it)", at: j)
            }
            appendUTF8(scalarValue)
            return next
        default:
            let shown = e >= 0x21 && e < 0x7F ? String(UnicodeScalar(e)) : hexByte(e)
            throw error("invalid escape sequence '\\\(shown)' in string", at: j)
        }
        scratch.append(byte)
        return j + 2
    }

    func hex4(at k: Int, escapeAt j: Int) throws(JSONParseError) -> UInt16 {
        var value: UInt16 = 0
        if k + 4 <= n {
            var m = 0
            while m < 4 {
                let c = p[k + m]
                let d: UInt8
                switch c {
                case 0x30...0x39: d = c - 0x30
                case 0x41...0x46: d = c - 0x41 + 10
                case 0x61...0x66: d = c - 0x61 + 10
                default: throw error("invalid \\u escape in string, expected 4 hex digits", at: j)
                }
                value = value << 4 | UInt16(d)
                m += 1
            }
            return value
        }
        throw error("invalid \\u escape in string, expected 4 hex digits", at: j)
    }

    mutating func appendUTF8(_ v: UInt32) {
        if v < 0x80 {
            scratch.append(UInt8(v))
        } else if v < 0x800 {
            scratch.append(UInt8(0xC0 | (v >> 6)))
            scratch.append(UInt8(0x80 | (v & 0x3F)))
        } else if v < 0x10000 {
            scratch.append(UInt8(0xE0 | (v >> 12)))
            scratch.append(UInt8(0x80 | ((v >> 6) & 0x3F)))
            scratch.append(UInt8(0x80 | (v & 0x3F)))
        } else {
            scratch.append(UInt8(0xF0 | (v >> 18)))
            scratch.append(UInt8(0x80 | ((v >> 12) & 0x3F)))
            scratch.append(UInt8(0x80 | ((v >> 6) & 0x3F)))
            scratch.append(UInt8(0x80 | (v & 0x3F)))
        }
    }

    /// Checks the multi-byte UTF-8 sequence whose lead byte is at `j` (well-formed per
    /// Unicode table 3-7: no overlongs, no surrogates, nothing above U+10FFFF);
    /// returns the index after it.
    func validateUTF8Sequence(at j: Int) throws(JSONParseError) -> Int {
        let lead = p[j]
        @inline(__always) func byte(_ k: Int) -> UInt8 { k < n ? p[k] : 0 }
        @inline(__always) func isContinuation(_ k: Int) -> Bool { byte(k) & 0xC0 == 0x80 }
        let ok: Bool
        let length: Int
        switch lead {
        case 0xC2...0xDF:
            length = 2
            ok = isContinuation(j + 1)
        case 0xE0:
            length = 3
            ok = (0xA0...0xBF).contains(byte(j + 1)) && isContinuation(j + 2)
        case 0xE1...0xEC, 0xEE, 0xEF:
            length = 3
            ok = isContinuation(j + 1) && isContinuation(j + 2)
        case 0xED:
            length = 3
            ok = (0x80...0x9F).contains(byte(j + 1)) && isContinuation(j + 2)
        case 0xF0:
            length = 4
            ok = (0x90...0xBF).contains(byte(j + 1)) && isContinuation(j + 2) && isContinuation(j + 3)
        case 0xF1...0xF3:
            length = 4
            ok = isContinuation(j + 1) && isContinuation(j + 2) && isContinuation(j + 3)
        case 0xF4:
            length = 4
            ok = (0x80...0x8F).contains(byte(j + 1)) && isContinuation(j + 2) && isContinuation(j + 3)
        default:
            length = 1
            ok = false
        }
        guard ok else { throw error("invalid UTF-8 in string", at: j) }
        return j + length
    }

    // MARK: Numbers

    mutating func parseNumber() throws(JSONParseError) -> Double {
        switch JSONNumberText.scan(p, n, from: i) {
        case .number(let value, let end):
            i = end
            return value
        case .invalid(let message, let offset):
            throw error(message, at: offset)
        }
    }

    // MARK: Errors

    func unexpected(expecting what: String) -> JSONParseError {
        guard i < n else { return error("unexpected end of input, expected \(what)", at: i) }
        let c = p[i]
        if c == ASCII.slash { return error("comments are not allowed", at: i) }
        let shown = c >= 0x20 && c < 0x7F ? "'\(String(UnicodeScalar(c)))'" : "byte \(hexByte(c))"
        return error("expected \(what), found \(shown)", at: i)
    }

    @inline(never)
    func error(_ message: String, at offset: Int) -> JSONParseError {
        var line = 1
        var lineStart = 0
        var k = 0
        let end = min(offset, n)
        while k < end {
            if p[k] == ASCII.newline {
                line += 1
                lineStart = k + 1
            }
            k += 1
        }
        return JSONParseError(message: message, line: line, column: offset - lineStart + 1, offset: offset)
    }
}

private let hexDigits: [Character] = Array("0123456789ABCDEF")

private func hexByte(_ b: UInt8) -> String {
    "0x" + String(hexDigits[Int(b >> 4)]) + String(hexDigits[Int(b & 0xF)])
}

private func hex4String(_ v: UInt16) -> String {
    var s = ""
    for shift in stride(from: 12, through: 0, by: -4) {
        s.append(hexDigits[Int((v >> UInt16(shift)) & 0xF)])
    }
    return s
}

private func hexScalar(_ v: UInt32) -> String { "U+" + hex4String(UInt16(v)) }
