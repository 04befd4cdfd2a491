/// A JSON value that keeps object keys in the order they were written.
///
/// Order matters to layoutd: the processing order of a layout document's views and
/// constraints is the order of their keys, and it decides which required constraint
/// is broken when required constraints conflict.
public enum JSONValue: Equatable, Sendable {
    case null
    case bool(Bool)
    case number(Double)
    case string(String)
    case array([JSONValue])
    case object(JSONObject)
}

/// An insertion-ordered JSON object. Keys are unique (the parser rejects duplicates).
public struct JSONObject: Equatable, Sendable {
    public private(set) var keys: [String]
    public private(set) var values: [JSONValue]
    /// Index from key to position, built only for larger objects where a linear
    /// scan would cost more than hashing (views maps with thousands of entries).
    private var index: [String: Int]?

    static let indexThreshold = 12

    public init() {
        keys = []
        values = []
        index = nil
    }

    /// Builds an object from ordered pairs; a later duplicate key replaces the earlier value in place.
    public init(_ pairs: [(String, JSONValue)]) {
        self.init()
        keys.reserveCapacity(pairs.count)
        values.reserveCapacity(pairs.count)
        for (k, v) in pairs { self[k] = v }
    }

    /// Builds an object from keys the caller has already checked to be distinct (the parser
    /// does), with the key index when the caller built one; no per-key lookups.
    init(uniqueKeys keys: [String], values: [JSONValue], index: [String: Int]?) {
        self.keys = keys
        self.values = values
        self.index = index
        if index == nil && keys.count > Self.indexThreshold { rebuildIndex() }
    }

    public var count: Int { keys.count }
    public var isEmpty: Bool { keys.isEmpty }

    /// Pairs in insertion order.
    public var entries: Zip2Sequence<[String], [JSONValue]> { zip(keys, values) }

    public func position(of key: String) -> Int? {
        if let index { return index[key] }
        return keys.firstIndex(of: key)
    }

    public subscript(key: String) -> JSONValue? {
        get { position(of: key).map { values[$0] } }
        set {
            if let i = position(of: key) {
                if let newValue {
                    values[i] = newValue
                } else {
                    remove(at: i)
                }
            } else if let newValue {
                keys.append(key)
                values.append(newValue)
                if index != nil {
                    index![key] = keys.count - 1
                } else if keys.count > Self.indexThreshold {
                    rebuildIndex()
                }
            }
        }
    }

    private mutating func remove(at i: Int) {
        keys.remove(at: i)
        values.remove(at: i)
        if index != nil { rebuildIndex() }
    }

    private mutating func rebuildIndex() {
        var d = [String: Int](minimumCapacity: keys.count)
        for (i, k) in keys.enumerated() { d[k] = i }
        index = d
    }

    public static func == (a: JSONObject, b: JSONObject) -> Bool {
        a.keys == b.keys && a.values == b.values
    }
}

extension JSONValue {
    public var objectValue: JSONObject? { if case .object(let o) = self { return o } else { return nil } }
    public var arrayValue: [JSONValue]? { if case .array(let a) = self { return a } else { return nil } }
    public var stringValue: String? { if case .string(let s) = self { return s } else { return nil } }
    public var numberValue: Double? { if case .number(let n) = self { return n } else { return nil } }
    public var boolValue: Bool? { if case .bool(let b) = self { return b } else { return nil } }
    public var isNull: Bool { if case .null = self { return true } else { return false } }

    /// Member of an object, nil for a missing key or a non-object.
    public subscript(key: String) -> JSONValue? { objectValue?[key] }

    /// Runs `body` on this object in place: the storage is not copied when this value holds the
    /// only reference to it. Does nothing (nil) when this is not an object.
    @discardableResult
    public mutating func modifyObject<R>(_ body: (inout JSONObject) -> R) -> R? {
        guard case .object(var o) = self else { return nil }
        self = .null  // drop this reference, so `o` is unique
        defer { self = .object(o) }
        return body(&o)
    }

    /// Removes the member `key` of an object (nothing for other values).
    public mutating func removeMember(_ key: String) {
        modifyObject { o in if o.position(of: key) != nil { o[key] = nil } }
    }

    /// A short name of the value's type, for error messages ("a string", "an object").
    public var typeName: String {
        switch self {
        case .null: return "null"
        case .bool: return "a boolean"
        case .number: return "a number"
        case .string: return "a string"
        case .array: return "an array"
        case .object: return "an object"
        }
    }
}
