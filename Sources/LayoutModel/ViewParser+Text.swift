import JSON

// A view's `text` and `heightForWidth` members (docs/document.md, "Text that wraps"): read with
// the view; every problem is reported at once, at its JSON pointer.

extension ViewParser {
    static let textFields: Set<String> = ["wordWidths", "spaceWidth", "lineHeight", "maxLines"]

    /// The `text` member at `at`. nil when it has problems (the document is refused anyway).
    mutating func parseText(_ value: JSONValue, at: String) -> TextSpec? {
        guard let o = reader.object(value, at: at) else { return nil }
        let before = reader.problems.count
        reader.rejectUnknownFields(o, at: at, allowed: Self.textFields, place: "a text")
        var words: [Double] = []
        if let v = o["wordWidths"] {
            let p = docPointer(at, "wordWidths")
            if case .array(let a) = v {
                if a.isEmpty {
                    reader.report(p, .emptyList, "a text needs at least one word width (an empty label has "
                                  + "no text: leave `text` out, or give `intrinsicSize`)")
                }
                words.reserveCapacity(a.count)
                for (i, item) in a.enumerated() {
                    // Fast path: a plain non-negative number; the reader says what is wrong otherwise.
                    if case .number(let x) = item, let w = FieldReader.checkMagnitude(x, maxMagnitude: limits.maxMagnitude),
                       w >= 0 {
                        words.append(w)
                    } else if let w = reader.size(item, at: docPointer(p, i)) {
                        words.append(w)
                    }
                }
            } else {
                reader.typeMismatch(v, expected: "an array of word widths", at: p)
            }
        } else {
            reader.report(docPointer(at, "wordWidths"), .missingField, "a text needs \"wordWidths\": each word's width")
        }
        func size(_ key: String, required: Bool) -> Double? {
            guard let v = o[key] else {
                if required { reader.report(docPointer(at, key), .missingField, "a text needs \"\(key)\"") }
                return nil
            }
            return reader.size(v, at: docPointer(at, key))
        }
        let space = size("spaceWidth", required: true)
        let lineHeight = size("lineHeight", required: true)
        var maxLines = 0
        if let v = o["maxLines"] {
            let p = docPointer(at, "maxLines")
            if let n = reader.number(v, at: p) {
                // A count of lines: a whole number, 0 for no limit.
                if n < 0 || n != n.rounded() || n > Double(Int32.max) {
                    reader.report(p, .outOfRange, "maxLines must be a whole number >= 0 (0: no limit), got \(formatNumber(n))")
                } else {
                    maxLines = Int(n)
                }
            }
        }
        guard reader.problems.count == before, let space, let lineHeight else {
            if reader.problems.count - before > 1 {
                reader.problems[before...] = ArraySlice(inFieldOrder(Array(reader.problems[before...]), of: o, at: at))
            }
            return nil
        }
        return .words(WrappedText(wordWidths: words, spaceWidth: space, lineHeight: lineHeight, maxLines: maxLines))
    }

    /// The `heightForWidth` member at `at`: `[[width, height], …]`, widths ascending strictly.
    mutating func parseHeightForWidth(_ value: JSONValue, at: String) -> TextSpec? {
        guard case .array(let a) = value else {
            reader.typeMismatch(value, expected: "an array of [width, height] pairs", at: at)
            return nil
        }
        let before = reader.problems.count
        if a.isEmpty {
            reader.report(at, .emptyList, "heightForWidth needs at least one [width, height] pair")
            return nil
        }
        var samples: [HeightSample] = []
        samples.reserveCapacity(a.count)
        var last: Double?
        for (i, item) in a.enumerated() {
            let p = docPointer(at, i)
            guard case .array(let pair) = item, pair.count == 2 else {
                if case .array(let pair) = item {
                    // The right type, the wrong length: say so rather than "got an array".
                    reader.report(p, .invalidType, "expected a [width, height] pair of numbers, got \(pair.count) numbers")
                } else {
                    reader.typeMismatch(item, expected: "a [width, height] pair of numbers", at: p)
                }
                continue
            }
            let w = reader.size(pair[0], at: docPointer(p, 0))
            let h = reader.size(pair[1], at: docPointer(p, 1))
            if let w {
                if let last, w <= last {
                    reader.report(docPointer(p, 0), .notAscending,
                                  "heightForWidth widths must ascend: \(formatNumber(w)) follows \(formatNumber(last))")
                }
                last = max(last ?? w, w)
            }
            if let w, let h { samples.append(HeightSample(width: w, height: h)) }
        }
        return reader.problems.count == before ? .heightForWidth(samples) : nil
    }

    /// `text` and `heightForWidth` each replace `intrinsicSize.height`, and say the same thing as
    /// each other: a view with two of them is refused (`conflicting_fields`) rather than one of
    /// them winning silently. `intrinsicSize.width` stays allowed: it replaces the text's
    /// one-line width (a client that caps a label's width, as UILabel's preferredMaxLayoutWidth).
    mutating func checkTextConflicts(_ o: JSONObject, at: String) {
        guard o["text"] != nil || o["heightForWidth"] != nil else { return }
        if o["text"] != nil && o["heightForWidth"] != nil {
            reader.report(docPointer(at, "heightForWidth"), .conflictingFields,
                          "a view has `text` or `heightForWidth`, not both: both give its height for a width")
        }
        if case .object(let size)? = o["intrinsicSize"], size["height"] != nil {
            let which = o["text"] != nil ? "text" : "heightForWidth"
            reader.report(docPointer(docPointer(at, "intrinsicSize"), "height"), .conflictingFields,
                          "`\(which)` gives this view's intrinsic height; leave intrinsicSize.height out")
        }
    }
}
