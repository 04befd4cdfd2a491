import Foundation
import JSON

/// A JSON value decoded by Foundation's `JSONDecoder` (what a Codable server would do for a
/// document whose shape is open: views and constraints keyed by id).
private enum FoundationJSON: Decodable {
    case null, bool(Bool), number(Double), string(String), array([FoundationJSON]), object([String: FoundationJSON])

    init(from decoder: Decoder) throws {
        if var a = try? decoder.unkeyedContainer() {
            var out: [FoundationJSON] = []
            while !a.isAtEnd { out.append(try a.decode(FoundationJSON.self)) }
            self = .array(out)
        } else if let o = try? decoder.container(keyedBy: Key.self) {
            var out: [String: FoundationJSON] = [:]
            for k in o.allKeys { out[k.stringValue] = try o.decode(FoundationJSON.self, forKey: k) }
            self = .object(out)
        } else {
            let c = try decoder.singleValueContainer()
            if c.decodeNil() { self = .null }
            else if let b = try? c.decode(Bool.self) { self = .bool(b) }
            else if let n = try? c.decode(Double.self) { self = .number(n) }
            else { self = .string(try c.decode(String.self)) }
        }
    }

    struct Key: CodingKey {
        var stringValue: String
        var intValue: Int? { nil }
        init(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }
}

extension LayoutBench {
    /// `json-parse`: the request-body parsers compared on the same bytes (the bundle's document,
    /// and a one-constant merge patch): this project's `JSONParser` (order-keeping, over the
    /// bytes), Foundation's `JSONSerialization` and Foundation's `JSONDecoder` into an open JSON
    /// enum. Neither Foundation path keeps object key order, which the document's processing
    /// order needs; the figures show what that would have cost or saved.
    func jsonParsers(document: [UInt8], patch: [UInt8], workload: String, views: Int) throws {
        for (name, bytes) in [("document", document), ("patch", patch)] {
            let data = Data(bytes)
            let reps = bytes.count > 100_000 ? 5 : bytes.count > 10_000 ? 100 : 20_000
            func time(_ body: () throws -> Void) rethrows -> Double {
                var samples: [Double] = []
                samples.reserveCapacity(reps)
                for _ in 0..<reps {
                    let t0 = DispatchTime.now().uptimeNanoseconds
                    try body()
                    samples.append(Double(DispatchTime.now().uptimeNanoseconds - t0) / 1e3)
                }
                return percentile(samples, 50)
            }
            let ours = try time { _ = try JSONParser.parse(bytes) }
            let serialization = try time { _ = try JSONSerialization.jsonObject(with: data) }
            let decoder = try time { _ = try JSONDecoder().decode(FoundationJSON.self, from: data) }
            emit(f(["case": "json-parse", "input": name, "workload": workload, "views": views, "bytes": bytes.count,
                    "ours_us_p50": ours, "foundation_serialization_us_p50": serialization,
                    "foundation_decoder_us_p50": decoder]))
        }
    }
}
