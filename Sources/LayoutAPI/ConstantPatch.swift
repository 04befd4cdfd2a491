import JSON
import LayoutModel

/// The most common PATCH, `{"constraints": {ID: {"constant": N}}}`, applied to an entry in the
/// object form without reading the entry again.
///
/// Reading the merged entry (text to a JSON tree, then the document parser) was most of what such
/// a PATCH cost. When the entry is a single constraint written as an object (`first`, `second`,
/// `relation`, `multiplier`, `constant` and the common fields, no `dialect`, outside Mortar's
/// dialect), its one item depends on the `constant` field as `-constant` and on nothing else that
/// the patch changes: every check the parser makes is about the anchors, the relation and the
/// other fields, which stay as they were (both of the model's object-form compilers make the item
/// `first - multiplier·second - constant REL 0`, without scaling it). The entry the parser would
/// give is then the current one with its item's constant replaced. The stored entry is checked on
/// its own data: its item's constant must be minus the stored `constant`. Anything else (another
/// field, a number out of range, an entry in another form) goes through the general member path,
/// which reads and validates it whole. `ConstantPatchTests` compares the two on every shape.
enum ConstantPatch {
    /// Object-form fields that may sit beside `constant` (`dialect` may not: it changes how the
    /// fields are read), as bytes.
    private static let objectFields: [[UInt8]] = ["first", "second", "relation", "multiplier", "constant",
                                                  "priority", "activation", "active", "group", "identifier"]
        .map { Array($0.utf8) }
    private static let first = 0, constant = 4

    /// The entry `change` makes of `old`, whose canonical text is `text`; nil when the rule above
    /// does not apply.
    static func entry(_ change: JSONValue, text: ArraySlice<UInt8>, old: ConstraintEntry, dialect: Dialect,
                      limits: DocumentLimits) -> ConstraintEntry? {
        guard dialect != .mortar, old.items.count == 1,
              case .object(let fields) = change, fields.count == 1, fields.keys[0] == "constant",
              case .number(let value) = fields.values[0],
              value.isFinite, abs(value) <= limits.maxMagnitude,
              storesConstant(-old.items[0].constant, text) else { return nil }
        var entry = old
        entry.items[0].constant = value == 0 ? 0 : -value
        return entry
    }

    /// Whether `text` is an object-form member (every field one of `objectFields`, `first` among
    /// them) whose `constant` is `c`. The text was written by `JSONWriter`, whose numbers are one
    /// text per value: `c` is written the same way and compared as bytes.
    static func storesConstant(_ c: Double, _ text: ArraySlice<UInt8>) -> Bool {
        let expected = JSONChunk.bytes(capacity: JSONChunk.maxNumberLength) { $0.number(c) }
        var seen = 0  // bit k: objectFields[k] present
        let wellFormed = MemberText.forEachMember(text) { key, value in
            guard let k = objectFields.firstIndex(where: { name in
                name.count == key.count && name.withUnsafeBufferPointer { n in
                    (0..<n.count).allSatisfy { n[$0] == key[$0] }
                }
            }) else { return false }
            seen |= 1 << k
            return k != constant || value.elementsEqual(expected)
        }
        return wellFormed && seen & (1 << first) != 0 && seen & (1 << constant) != 0
    }
}
