import LayoutAPI
import LayoutModel

// `layoutd solve --explain VIEW.ATTRIBUTE`: the document is put into a session of an API of its
// own and the explain route asked, so the command prints byte for byte what the daemon answers.

extension Solve {
    /// The session the command's API holds the document in.
    static let explainSession = "solve"

    /// `(view, attribute)` of `VIEW.ATTRIBUTE`, or nil when it is not of that shape.
    static func explainTarget(_ text: String) -> (view: String, attribute: String)? {
        AnchorVocabulary.split(text)
    }

    /// What `GET /v1/sessions/{id}/explain` answers for `target` in a session holding `document`;
    /// the session's own problem (400, 409 with `strict`, 413, 422) when the document is refused.
    static func explanation(of target: String, document: [UInt8], strict: Bool,
                            configuration: APIConfiguration) -> APIResponse {
        guard let (view, attribute) = explainTarget(target) else {
            preconditionFailure("validate() checks --explain")
        }
        let api = LayoutAPI(configuration: configuration)
        let headers = [("Content-Type", "application/json"), (RequestID.header, requestID)]
        let put = api.handle(APIRequest(method: "PUT", path: "/v1/sessions/" + explainSession,
                                        query: strict ? "strict=true" : "", headers: headers, body: document))
        guard put.status == 200 || put.status == 201 else { return put }
        let query = "view=" + queryEncoded(view) + "&attribute=" + queryEncoded(attribute)
        return api.handle(APIRequest(method: "GET", path: "/v1/sessions/\(explainSession)/explain", query: query,
                                     headers: [(RequestID.header, requestID)], body: []))
    }

    /// Percent-encodes everything but RFC 3986's unreserved characters (ids may hold `#`).
    static func queryEncoded(_ s: String) -> String {
        var out = ""
        for byte in s.utf8 {
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
                 UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "_"), UInt8(ascii: "."),
                 UInt8(ascii: "~"):
                out.unicodeScalars.append(Unicode.Scalar(byte))
            default:
                let hex = Array("0123456789ABCDEF")
                out += "%" + String(hex[Int(byte >> 4)]) + String(hex[Int(byte & 15)])
            }
        }
        return out
    }
}
