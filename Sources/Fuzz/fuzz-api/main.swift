// fuzz-api: LayoutAPI.handle, the whole HTTP API in process, with random methods, paths, query strings, headers
// and bodies.
//
// The input is requests separated by `\n%\n` lines, sent in turn to one fresh LayoutAPI (so a PUT can create the
// session that the next requests edit). Each request is written like HTTP: a first line `METHOD TARGET` (TARGET
// is the path, then `?` and the query), header lines `Name: value`, an empty line, then the body.
// For every answer (docs/http.md, "Errors"):
// - no 5xx, except 503 /problems/busy (documented for a create that keeps losing races);
// - every 4xx/5xx is `application/problem+json` with a JSON object body that repeats the status and has a type,
//   title and detail;
// - a 2xx JSON answer (`application/json`) has a JSON body; 204 and 304 have no body.
import FuzzSupport
import JSON
import LayoutAPI

runFuzzer { bytes in
    // Two resident sessions at most, so that the dormant-session paths (sleep and wake) run too; a CORS origin,
    // so that the CORS decoration runs.
    let api = LayoutAPI(configuration: APIConfiguration(
        maxSessions: 8, maxResidentSessions: 2, corsOrigins: ["https://app.example"]))
    for part in inputParts(bytes, limit: 16) {
        let request = parseRequest(part)
        let response = api.handle(request)
        check(response, for: request)
    }
}

/// `METHOD TARGET\nName: value\n...\n\nbody` (a missing target is `/`; a line without `:` is a header with an
/// empty value).
func parseRequest(_ bytes: [UInt8]) -> APIRequest {
    let newline = UInt8(ascii: "\n")
    var lines: [String] = []
    var i = 0
    var bodyStart = bytes.count
    while i <= bytes.count {
        let end = bytes[i...].firstIndex(of: newline) ?? bytes.count
        let line = String(decoding: bytes[i..<end], as: UTF8.self)
        if line.isEmpty && !lines.isEmpty {
            bodyStart = min(end + 1, bytes.count)
            break
        }
        lines.append(line)
        i = end + 1
    }
    let first = lines.first ?? ""
    let method = String(first.prefix { $0 != " " })
    let target = first.drop { $0 != " " }.dropFirst()
    let path = target.isEmpty ? "/" : String(target.prefix { $0 != "?" })
    let query = String(target.drop { $0 != "?" }.dropFirst())
    let headers = lines.dropFirst().map { line -> (name: String, value: String) in
        let name = line.prefix { $0 != ":" }
        return (String(name), String(line.dropFirst(name.count).dropFirst().drop { $0 == " " }))
    }
    return APIRequest(method: method, path: path, query: query, headers: headers, body: Array(bytes[bodyStart...]))
}

func check(_ response: APIResponse, for request: APIRequest) {
    let what = "\(request.method) \(request.path)?\(request.query) answered \(response.status)"
    let contentType = response.header("Content-Type")
    fuzzCheck((100..<600).contains(response.status), "\(what): not an HTTP status")
    if response.status >= 400 {
        fuzzCheck(contentType == "application/problem+json", "\(what) with Content-Type \(contentType ?? "none")")
        guard let body = try? JSONParser.parse(response.body), case .object = body else {
            fuzzFailure("\(what): the problem body is not a JSON object: \(response.text)")
        }
        fuzzCheck(body["status"]?.numberValue == Double(response.status), "\(what): body status \(response.text)")
        fuzzCheck(body["type"]?.stringValue != nil && body["title"]?.stringValue != nil
                    && body["detail"]?.stringValue != nil, "\(what): type, title or detail missing: \(response.text)")
        if response.status >= 500 {
            fuzzCheck(response.status == 503 && body["type"]?.stringValue == "/problems/busy",
                      "\(what): a 5xx: \(response.text)")
        }
    } else if response.status == 204 || response.status == 304 {
        fuzzCheck(response.body.isEmpty, "\(what) with a body")
    } else if contentType == "application/json" {
        fuzzCheck((try? JSONParser.parse(response.body)) != nil, "\(what): the JSON body does not parse: \(response.text)")
    }
}
