import JSON

extension NumberPatch {
    /// A request body that is one of the two lanes' patches, read from the bytes.
    enum Body: Equatable {
        /// `{"constraints": {id: {"constant": value}}}`
        case constant(id: String, value: Double)
        /// `{"views": {id: {"frame": {"width": width, "height": height}}}}`, one or both sizes;
        /// `heightFirst` when both are written, height first (the order a merge keeps for new keys).
        case size(id: String, width: Double?, height: Double?, heightFirst: Bool = false)

        /// The tree `JSONParser` reads from the body, made from the values the scanner read: a body
        /// that the lane cannot apply goes to the general classification without being parsed
        /// a second time.
        var tree: JSONValue {
            func object(_ key: String, _ value: JSONValue) -> JSONValue { .object(JSONObject([(key, value)])) }
            switch self {
            case .constant(let id, let value):
                return object("constraints", object(id, object("constant", .number(value))))
            case .size(let id, let width, let height, let heightFirst):
                var sizes: [(String, JSONValue)] = []
                if let width { sizes.append(("width", .number(width))) }
                if let height { sizes.insert(("height", .number(height)), at: heightFirst ? 0 : sizes.count) }
                return object("views", object(id, object("frame", .object(JSONObject(sizes)))))
            }
        }
    }

    /// The lane's patch `body` is, or nil for any other text (or invalid JSON, or a shape the
    /// scanner leaves to the parser: an escaped id, a repeated key).
    ///
    /// Parsing such a patch into a tree and taking it apart again cost more than the rest of
    /// the lane: the two objects per level, the key strings and their release. The scanner
    /// accepts exactly what `JSONParser` would read as this shape, with the same numbers, so
    /// the body gives the same plan either way (`NumberPatchTests` compares the two).
    static func body(_ bytes: [UInt8]) -> Body? {
        bytes.withUnsafeBufferPointer { buffer in
            var s = JSONScanner(buffer)
            guard s.consume(UInt8(ascii: "{")) else { return nil }
            let body: Body
            if s.consumeKey("constraints") {
                guard s.consume(UInt8(ascii: ":")), s.consume(UInt8(ascii: "{")), let id = s.plainString(),
                      s.consume(UInt8(ascii: ":")), s.consume(UInt8(ascii: "{")), s.consumeKey("constant"),
                      s.consume(UInt8(ascii: ":")), let value = s.number(),
                      s.consume(UInt8(ascii: "}")) else { return nil }
                body = .constant(id: String(decoding: id, as: UTF8.self), value: value)
            } else if s.consumeKey("views") {
                guard s.consume(UInt8(ascii: ":")), s.consume(UInt8(ascii: "{")), let id = s.plainString(),
                      s.consume(UInt8(ascii: ":")), s.consume(UInt8(ascii: "{")), s.consumeKey("frame"),
                      s.consume(UInt8(ascii: ":")), s.consume(UInt8(ascii: "{")) else { return nil }
                var width: Double?, height: Double?
                var heightFirst = false
                repeat {
                    if s.consumeKey("width") {
                        guard width == nil, s.consume(UInt8(ascii: ":")), let w = s.number() else { return nil }
                        width = w
                    } else if s.consumeKey("height") {
                        guard height == nil, s.consume(UInt8(ascii: ":")), let h = s.number() else { return nil }
                        height = h
                        heightFirst = width == nil
                    } else {
                        return nil
                    }
                } while s.consume(UInt8(ascii: ","))
                guard s.consume(UInt8(ascii: "}")), s.consume(UInt8(ascii: "}")) else { return nil }
                body = .size(id: String(decoding: id, as: UTF8.self), width: width, height: height,
                             heightFirst: heightFirst && width != nil)
            } else {
                return nil
            }
            guard s.consume(UInt8(ascii: "}")), s.consume(UInt8(ascii: "}")), s.isAtEnd() else { return nil }
            return body
        }
    }
}
