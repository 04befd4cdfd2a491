import JSON

/// The error parsing `text` throws, or nil when it parses.
func parseError(_ text: String, maxDepth: Int = 128) -> JSONParseError? {
    do {
        _ = try JSONParser.parse(text, maxDepth: maxDepth)
        return nil
    } catch {
        return error
    }
}

/// The error parsing raw `bytes` throws, or nil when they parse.
func parseError(bytes: [UInt8], maxDepth: Int = 128) -> JSONParseError? {
    do {
        _ = try JSONParser.parse(bytes, maxDepth: maxDepth)
        return nil
    } catch {
        return error
    }
}

/// Parses JSON text written in a test; a syntax error there is a bug in the test.
func json(_ text: String) -> JSONValue {
    do {
        return try JSONParser.parse(text)
    } catch {
        fatalError("test fixture is not valid JSON: \(error)\n\(text)")
    }
}

func bytes(_ s: String) -> [UInt8] { Array(s.utf8) }

