import JSON
import LayoutEngine
import LayoutModel

/// The two most common PATCHes, a new constant for a constraint entry and a new size for a root,
/// applied without reading the member again: the member is the current one with that number
/// replaced, when the stored text and the model show that this is what reading it would give.
///
/// **Constants**, `{"constraints": {ID: {"constant": N}}}`. Reading the merged entry (text to a
/// JSON tree, then the document parser) was most of what such a PATCH cost. When the entry is a
/// single constraint written as an object (`first`, `second`, `relation`, `multiplier`,
/// `constant` and the common fields, no `dialect`, outside Mortar's dialect), its one item depends on the `constant` field as `-constant` and on nothing else that
/// the patch changes: every check the parser makes is about the anchors, the relation and the
/// other fields, which stay as they were (both of the model's object-form compilers make the item
/// `first - multiplier·second - constant REL 0`, without scaling it). The entry the parser would
/// give is then the current one with its item's constant replaced. The stored entry is checked on
/// its own data: its item's constant must be minus the stored `constant`. Anything else (another
/// field, a number out of range, an entry in another form) goes through the general member path,
/// which reads and validates it whole.
///
/// **Sizes**, `{"views": {ID: {"frame": {"width": W, "height": H}}}}` (either or both). A view's
/// frame is read field by field, each size a number between 0 and the limit, independent of the
/// view's other fields: the view the parser would give is the current one with those sizes, when
/// the stored frame holds both keys with the view's current values.
///
/// Each lane walks the stored text once: to check it (a stored number must read as the model's
/// value), and to find the bytes of the number(s) to replace. The new text is the old one with the
/// new numbers spliced in as `JSONWriter` writes them, which is what `MemberText.merge` gives for
/// such a patch.
///
/// `NumberPatchTests` compares both with a full re-read on every shape.
enum NumberPatch {
    /// Object-form fields that may sit beside `constant` (`dialect` may not: it changes how the
    /// fields are read), as bytes.
    private static let objectFields: [[UInt8]] = ["first", "second", "relation", "multiplier", "constant",
                                                  "priority", "activation", "active", "group", "identifier"]
        .map { Array($0.utf8) }
    private static let first = 0, constant = 4

    /// The entry `change` makes of `old`, whose canonical text is `text`, and its new text; nil
    /// when the rule above does not apply.
    static func constant(_ change: JSONValue, text: ArraySlice<UInt8>, old: ConstraintEntry, dialect: Dialect,
                         limits: DocumentLimits) -> (entry: ConstraintEntry, text: [UInt8])? {
        guard case .object(let fields) = change, fields.count == 1, fields.keys[0] == "constant",
              case .number(let value) = fields.values[0],
              let new = constantText(value, text: text, items: old.items.count,
                                     itemConstant: old.items.first?.constant ?? 0, dialect: dialect,
                                     limits: limits) else { return nil }
        return (old.withItemConstant(itemConstant(value)), new)
    }

    /// The new text of an entry whose text is `text`, with `items` items, the first with
    /// constant `itemConstant`, when `{"constant": value}` takes the lane (as above); nil when it
    /// does not. The entry it makes has its item's constant `itemConstant(value)`.
    static func constantText(_ value: Double, text: ArraySlice<UInt8>, items: Int, itemConstant: Double,
                             dialect: Dialect, limits: DocumentLimits) -> [UInt8]? {
        guard dialect != .mortar, items == 1, value.isFinite, abs(value) <= limits.maxMagnitude,
              let range = constantRange(-itemConstant, in: text) else { return nil }
        return splice(text, [(range, value)])
    }

    /// The item constant of an object-form entry whose `constant` is `value`.
    static func itemConstant(_ value: Double) -> Double { value == 0 ? 0 : -value }

    /// Where, in `text`, the value of `constant` is, when `text` is an object-form member (every
    /// field one of `objectFields`, `first` among them) whose `constant` reads as `c`; nil
    /// otherwise.
    static func constantRange(_ c: Double, in text: ArraySlice<UInt8>) -> Range<Int>? {
        var seen = 0  // bit k: objectFields[k] present
        var range: Range<Int>?
        let wellFormed = text.withUnsafeBufferPointer { t in
            MemberText.forEachMember(t) { key, value in
                guard let k = field(UnsafeBufferPointer(rebasing: t[key]), in: objectFields) else { return false }
                seen |= 1 << k
                guard k == constant else { return true }
                range = value
                return reads(UnsafeBufferPointer(rebasing: t[value]), as: c)
            }
        }
        guard wellFormed, seen & (1 << first) != 0, let range else { return nil }
        return range
    }

    private static let frameKeys: [[UInt8]] = ["x", "y", "width", "height"].map { Array($0.utf8) }
    private static let frame = Array("frame".utf8)

    /// The view `change` makes of `old`, whose canonical text is `text`, and its new text; nil
    /// when the rule above does not apply.
    static func frame(_ change: JSONValue, text: ArraySlice<UInt8>, old: View,
                      limits: DocumentLimits) -> (view: View, text: [UInt8])? {
        guard case .object(let fields) = change, fields.count == 1, fields.keys[0] == "frame",
              case .object(let sizes) = fields.values[0] else { return nil }
        var width: Double?, height: Double?
        for (key, value) in sizes.entries {
            guard case .number(let size) = value else { return nil }
            switch key {
            case "width": width = size
            case "height": height = size
            default: return nil
            }
        }
        guard old.kind == .view,
              let new = frameText(width: width, height: height, text: text, current: old.frame, limits: limits)
        else { return nil }
        return (old.withSizes(width: width, height: height), new)
    }

    /// The new text of a view (of kind `view`) whose text is `text` and frame `current`, when
    /// `{"frame": {"width": width, "height": height}}` takes the lane (as above); nil when it
    /// does not. The view it makes is the same with the sizes given.
    static func frameText(width: Double?, height: Double?, text: ArraySlice<UInt8>, current frameNow: FrameSpec,
                          limits: DocumentLimits) -> [UInt8]? {
        guard width != nil || height != nil else { return nil }
        // The stored frame must hold each given size with the view's current value.
        var current: [Double?] = [nil, nil, nil, nil]  // by position in `frameKeys`
        for (key, size) in [(2, width), (3, height)] {
            guard let size else { continue }
            guard size.isFinite, size >= 0, size <= limits.maxMagnitude,
                  let now = key == 2 ? frameNow.width : frameNow.height else { return nil }
            current[key] = now
        }
        // The stored frame: only frame keys, the patched ones with the view's current values.
        var found: [(range: Range<Int>, value: Double)] = []
        var sawFrame = false
        let wellFormed = text.withUnsafeBufferPointer { t in
            MemberText.forEachMember(t) { key, value in
                guard UnsafeBufferPointer(rebasing: t[key]).elementsEqual(frame) else { return true }
                sawFrame = true
                let inner = UnsafeBufferPointer(rebasing: t[value])
                return MemberText.forEachMember(inner) { innerKey, innerValue in
                    guard let k = field(UnsafeBufferPointer(rebasing: inner[innerKey]), in: frameKeys) else { return false }
                    guard let now = current[k] else { return true }
                    found.append(((innerValue.lowerBound + value.lowerBound)..<(innerValue.upperBound + value.lowerBound),
                                  k == 2 ? width! : height!))
                    return reads(UnsafeBufferPointer(rebasing: inner[innerValue]), as: now)
                }
            }
        }
        guard wellFormed, sawFrame, found.count == current.lazy.filter({ $0 != nil }).count else { return nil }
        return splice(text, found)
    }

    /// `text` with the bytes at each range (offsets from its start, ascending) replaced by its
    /// number as `JSONWriter` writes it (one text per value), in one allocation.
    private static func splice(_ text: ArraySlice<UInt8>, _ edits: [(range: Range<Int>, value: Double)]) -> [UInt8] {
        text.withUnsafeBufferPointer { t in
            JSONChunk.bytes(capacity: t.count + edits.count * JSONChunk.maxNumberLength) { out in
                var copied = 0
                for e in edits {
                    out.bytes(UnsafeBufferPointer(rebasing: t[copied..<e.range.lowerBound]))
                    out.number(e.value)
                    copied = e.range.upperBound
                }
                out.bytes(UnsafeBufferPointer(rebasing: t[copied...]))
            }
        }
    }

    /// Whether `number` (a member's value as stored) is one number that reads as `x`.
    private static func reads(_ number: UnsafeBufferPointer<UInt8>, as x: Double) -> Bool {
        var s = JSONScanner(number)
        guard let read = s.number(), s.isAtEnd() else { return false }
        return read == x
    }

    /// The position in `names` of `key`'s bytes, or nil. (Called for every member of the stored
    /// text: lengths first, then bytes, without a closure per name.)
    private static func field(_ key: UnsafeBufferPointer<UInt8>, in names: [[UInt8]]) -> Int? {
        for k in names.indices {
            let equal = names[k].withUnsafeBufferPointer { name in
                guard name.count == key.count else { return false }
                var j = 0
                while j < name.count && name[j] == key[j] { j += 1 }
                return j == name.count
            }
            if equal { return k }
        }
        return nil
    }
}
