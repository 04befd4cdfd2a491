/// `text` (a `store` setting, or a message that may quote one) with every password replaced by
/// `***`, for logs, `--print-config`, `layoutd store` output and error messages: the one function
/// every place that prints a store uses (issue 27: `user:pass@` and `?password=` were logged).
///
/// - URL form (`postgres://user:secret@host/db`): the password of the user information, up to the
///   last `@` before the query (a password holding a raw `@` or `/` is hidden whole), and the value
///   of every query parameter whose name ends in `password` (`password`, `sslpassword`; the name
///   percent-decoded as libpq decodes it, and in any case).
/// - Key/value form (`host=db password='se cret'`, as libpq also takes, and as messages may quote
///   it): the value of every key that ends in `password`, quoted or not.
/// Anything else (`memory`, `sqlite:PATH`) comes back unchanged.
public func redactedStoreURL(_ text: String) -> String {
    var chars = Array(text)
    if let scheme = text.firstRange(of: "://") {
        let start = text.distance(from: text.startIndex, to: scheme.upperBound)
        let query = chars[start...].firstIndex(of: "?") ?? chars.endIndex
        if let at = chars[start..<query].lastIndex(of: "@"), let colon = chars[start..<at].firstIndex(of: ":") {
            chars.replaceSubrange(colon + 1..<at, with: "***")
        }
        if let query = chars[start...].firstIndex(of: "?") {
            return String(chars[...query]) + redactedQuery(String(chars[(query + 1)...]))
        }
        return String(chars)
    }
    return redactedKeyValues(chars)
}

/// A URL query (`a=1&password=x`) with the values of password parameters hidden.
private func redactedQuery(_ query: String) -> String {
    query.split(separator: "&", omittingEmptySubsequences: false).map { parameter -> String in
        guard let equals = parameter.firstIndex(of: "="),
              isPasswordKey(percentDecoded(parameter[..<equals])) else { return String(parameter) }
        return parameter[...equals] + "***"
    }.joined(separator: "&")
}

/// libpq's `key = value` pairs with the values of password keys hidden: a value is a run of
/// non-blank characters, or quoted with `'` (and `\` escaping the next character).
private func redactedKeyValues(_ chars: [Character]) -> String {
    var out = ""
    var i = 0
    while i < chars.count {
        // A key starts at the beginning or after a blank.
        guard i == 0 || chars[i - 1].isWhitespace, chars[i].isLetter || chars[i] == "_" else {
            out.append(chars[i]); i += 1; continue
        }
        var end = i
        while end < chars.count, chars[end].isLetter || chars[end].isNumber || chars[end] == "_" { end += 1 }
        var equals = end
        while equals < chars.count, chars[equals] == " " { equals += 1 }
        guard equals < chars.count, chars[equals] == "=", isPasswordKey(String(chars[i..<end])) else {
            out.append(contentsOf: chars[i..<end]); i = end; continue
        }
        var value = equals + 1
        while value < chars.count, chars[value] == " " { value += 1 }
        out.append(contentsOf: chars[i..<value])
        out.append("***")
        // Skip the value itself.
        if value < chars.count, chars[value] == "'" {
            var j = value + 1
            while j < chars.count, chars[j] != "'" { j += chars[j] == "\\" ? 2 : 1 }
            i = min(j + 1, chars.count)
        } else {
            var j = value
            while j < chars.count, !chars[j].isWhitespace { j += 1 }
            i = j
        }
    }
    return out
}

private func isPasswordKey(_ key: String) -> Bool { key.lowercased().hasSuffix("password") }

/// `%XX` sequences decoded (enough for a parameter name: libpq decodes names before matching them).
private func percentDecoded(_ text: Substring) -> String {
    var bytes: [UInt8] = []
    var utf8 = Array(text.utf8)[...]
    while let byte = utf8.popFirst() {
        if byte == UInt8(ascii: "%"), utf8.count >= 2,
           let value = UInt8(String(decoding: utf8.prefix(2), as: UTF8.self), radix: 16) {
            bytes.append(value)
            utf8 = utf8.dropFirst(2)
        } else {
            bytes.append(byte)
        }
    }
    return String(decoding: bytes, as: UTF8.self)
}
