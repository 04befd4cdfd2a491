import Foundation
import Testing
import JSON
import Access
import TestSupport
@testable import LayoutAPI

/// docs/openapi.yaml against the code: the two must name the same routes, methods and statuses.
///
/// How drift is caught, both ways:
/// - **Routes.** The paths the code answers are found from the code itself: every string literal
///   of Sources/LayoutAPI/Route.swift is cut into path segments, every path of one to four of those
///   segments (and a session id) is put to `Route.match`, and each path it accepts, its session id
///   written `{id}`, must be a path of the spec; every path of the spec must be matched. A route
///   added to `Route` with its path in a literal shows up here without this test being touched.
/// - **Methods.** For each path, `Route.allowedMethods` (what `Allow` answers and the only methods
///   that do not answer 405) must be exactly the spec's operations.
/// - **Statuses.** Every operation of the spec is exercised on a fresh `LayoutAPI` with a set of
///   valid and invalid requests (a missing session, a bad id, a bad query, a body that is not JSON,
///   an invalid document, a strict conflict, failing and matching preconditions, a wrong media type,
///   a body over the limit, full session and subscriber limits, ...), all of them on every
///   operation, meaningful or not. Every status observed must be documented for that operation;
///   every documented status must be observed, except those that need a failing session store or
///   a lost race (`unreachable`, each with its reason).
/// Routes of the `ops` branch (`/metrics`, `/readyz`) are in the spec before they are in this
/// branch's code: while `Route.match` does not know them they are skipped (`pending`); once it
/// does, they are checked like every other route.
@Suite("The OpenAPI description (docs/openapi.yaml) matches the code")
struct OpenAPIContractTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()
    static let pending: Set<String> = ["/metrics", "/readyz"]
    static let methods = ["get", "head", "post", "put", "patch", "delete", "options"]

    static func spec() throws -> JSONObject {
        try #require(try JSONParser.parse(APIDescription.openAPIJSON).objectValue)
    }

    static func specPaths() throws -> JSONObject { try #require(try spec()["paths"]?.objectValue) }

    /// A concrete path for a template (`{id}` → `id`).
    static func concrete(_ template: String, id: String = "s1") -> String {
        template.replacingOccurrences(of: "{id}", with: id)
    }

    /// The template of a path `Route.match` accepted.
    static func template(_ path: String, _ route: Route) -> String {
        guard let id = route.sessionID else { return path }
        var segments = path.split(separator: "/", omittingEmptySubsequences: false).map(String.init)
        if segments.count > 3, segments[3] == id { segments[3] = "{id}" }
        return segments.joined(separator: "/")
    }

    /// Every path of up to four segments made of Route.swift's literals that `Route.match` accepts.
    static func codePaths() throws -> [String: Route] {
        let source = try String(contentsOf: root.appendingPathComponent("Sources/LayoutAPI/Route.swift"), encoding: .utf8)
        let literal = try NSRegularExpression(pattern: "\"([^\"\\\\]*)\"")
        var segments: Set<String> = ["s1", ""]
        for m in literal.matches(in: source, range: NSRange(source.startIndex..., in: source)) {
            guard let r = Range(m.range(at: 1), in: source) else { continue }
            for s in source[r].split(separator: "/") where !s.contains(" ") { segments.insert(String(s)) }
        }
        let vocabulary = segments.sorted()
        var found: [String: Route] = [:]
        var paths: [[String]] = [[]]
        for _ in 1...4 {
            paths = paths.flatMap { p in vocabulary.map { p + [$0] } }
            for p in paths {
                let path = "/" + p.joined(separator: "/")
                if let route = Route.match(path) { found[template(path, route)] = route }
            }
        }
        return found
    }

    @Test("every route of the code is a path of the spec and the reverse, with the same methods")
    func routesAndMethods() throws {
        let spec = try Self.specPaths()
        let code = try Self.codePaths()
        #expect(code.count >= 14, "the route search found only \(code.keys.sorted())")
        for (template, route) in code.sorted(by: { $0.key < $1.key }) {
            guard let item = spec[template]?.objectValue else {
                Issue.record("the code answers \(template) (\(route)); docs/openapi.yaml has no such path")
                continue
            }
            let documented = Set(item.keys.filter { Self.methods.contains($0) }.map { $0.uppercased() })
            #expect(documented == Set(route.allowedMethods),
                    "\(template): the code allows \(route.allowedMethods.sorted()), the spec documents \(documented.sorted())")
        }
        for template in spec.keys where code[template] == nil {
            if Self.pending.contains(template) && Route.match(template) == nil { continue }
            Issue.record("docs/openapi.yaml has \(template); the code answers no such route")
        }
    }

    /// One request of the exercise, on a fresh API holding the session `s1`.
    struct Probe: Sendable {
        var name: String
        var configuration = APIConfiguration(maxBodyBytes: 4_096)
        var id = "s1"
        var query = ""
        var headers: [(name: String, value: String)] = []
        var body: String? = OpenAPIContractTests.document
        /// PATCH's body (a merge patch) when `body` is the document.
        var patch: String? = #"{"constraints": {"h": {"constant": 240}}}"#
        var contentType: String? = "application/merge-patch+json"
        /// The current ETag of `s1` is put in this header.
        var currentTagIn: String?
        /// Access control on (`ContractKeys`): `s1` is made with the owner's key, and the request
        /// is sent with the key of this name (none: no `Authorization`), `repeats` times.
        var access = false
        var key: String?
        var repeats = 1
    }

    /// The keys of the access-control probes: one tenant, `t`.
    static let keys: KeysFixture = {
        let k = KeysFixture()
        k.add("owner", tenant: "t")
        k.add("viewer", tenant: "t", readOnly: true)
        k.add("limited", tenant: "t", rate: 1)
        k.add("quota", tenant: "t", maxSessions: 1)
        return k
    }()

    static let document = #"""
        {"views": {"root": {"frame": {"width": 375, "height": 667}}, "card": {"parent": "root"}},
         "constraints": {"pin": {"first": "card.edges", "second": "root.edges", "constant": 16},
                         "h": {"first": "card.height", "constant": 200, "priority": 750}}}
        """#
    static let conflicting = #"""
        {"views": {"root": {"frame": {"width": 100, "height": 100}}}, "constraints": {"w": "root.width == 200"}}
        """#

    static func configuration(_ change: (inout APIConfiguration) -> Void) -> APIConfiguration {
        var c = APIConfiguration(maxBodyBytes: 4_096)
        change(&c)
        return c
    }

    static let probes: [Probe] = [
        Probe(name: "valid"),
        Probe(name: "another document", body: #"{"views": {"root": {"frame": {"width": 10, "height": 10}}}}"#),
        Probe(name: "no such session", id: "nope"),
        Probe(name: "invalid id", id: "bad.id"),
        Probe(name: "bad query", query: "coordinates=polar"),
        Probe(name: "absolute, all frames, strict", query: "coordinates=absolute&frames=all&strict=false"),
        Probe(name: "body not JSON", body: "{", patch: "{"),
        Probe(name: "invalid document", body: #"{"views": {}}"#, patch: #"{"views": {"card": {"parent": "zz"}}}"#),
        Probe(name: "strict conflict", query: "strict=true", body: conflicting,
              patch: #"{"constraints": {"w": "root.width == 1"}}"#),
        Probe(name: "If-Match fails", headers: [("If-Match", "\"99\"")]),
        Probe(name: "If-Match matches", currentTagIn: "If-Match"),
        Probe(name: "If-None-Match current", currentTagIn: "If-None-Match"),
        Probe(name: "If-None-Match *", headers: [("If-None-Match", "*")]),
        Probe(name: "If-Match on a new id", id: "fresh", headers: [("If-Match", "*")]),
        Probe(name: "wrong media type", contentType: "text/plain"),
        Probe(name: "body too large", body: String(repeating: " ", count: 5_000) + document,
              patch: String(repeating: " ", count: 5_000) + "{}"),
        Probe(name: "session limit", configuration: configuration { $0.maxSessions = 1 }, id: "fresh"),
        Probe(name: "subscribers per session", configuration: configuration { $0.maxSubscribersPerSession = 0 }),
        Probe(name: "subscribers overall", configuration: configuration { $0.maxSubscribers = 0 }),
        Probe(name: "CORS preflight", configuration: configuration { $0.corsOrigins = ["https://app.example"] },
              headers: [("Origin", "https://app.example"), ("Access-Control-Request-Method", "PATCH")]),
        Probe(name: "no key", access: true),
        Probe(name: "a key", access: true, key: "owner"),
        Probe(name: "read-only key", access: true, key: "viewer"),
        Probe(name: "rate limit spent", access: true, key: "limited", repeats: 2),
        Probe(name: "tenant quota", id: "fresh", access: true, key: "quota"),
        // The explain route's parameters (every other route ignores them).
        Probe(name: "explain", query: "view=card&attribute=top"),
        Probe(name: "explain, current ETag", query: "view=card&attribute=top", currentTagIn: "If-None-Match"),
        Probe(name: "explain, unknown view", query: "view=crad&attribute=top"),
        Probe(name: "explain, unknown attribute", query: "view=card&attribute=tpo"),
    ]

    /// Documented statuses no in-process request can provoke, with why.
    static let unreachable: [String: String] = [
        "503": "a session store that fails (store-unavailable), a create that keeps losing races (busy), "
            + "or a store that cannot be reached (readyz): the daemon tests and StoredSessionTests cover them",
        "DELETE 409": "stale-session: a write fenced off by a store another node wrote to (issue 22)",
    ]

    static func status(_ probe: Probe, method: String, template: String) -> Int {
        var configuration = probe.configuration
        var owner: [(name: String, value: String)] = []
        if probe.access {
            // A bucket of its own for each probe, on a clock that stands still.
            configuration.access = AccessPolicy(keys: try! keys.ring(), limiter: RateLimiter(clock: { 0 }),
                                                now: { 1_800_000_000 })
            owner = [("Authorization", "Bearer " + keys.keys["owner"]!)]
        }
        let client = Client(configuration)
        let created = client.send("PUT", "/v1/sessions/s1", headers: owner, body: document)
        var headers = probe.headers
        if let name = probe.key { headers.append(("Authorization", "Bearer " + keys.keys[name]!)) }
        if let header = probe.currentTagIn, let tag = created.header("ETag") { headers.append((header, tag)) }
        var body: String? = nil
        switch method {
        case "POST", "PUT": body = probe.body
        case "PATCH":
            body = probe.patch
            if let type = probe.contentType { headers.append(("Content-Type", type)) }
        default: break
        }
        var status = 0
        for _ in 0..<probe.repeats {
            status = client.send(method, concrete(template, id: probe.id), query: probe.query, headers: headers,
                                 body: body).status
        }
        return status
    }

    @Test("every status an operation answers is documented for it, and every documented one is answered")
    func statuses() throws {
        let spec = try Self.specPaths()
        var operations = 0
        for (template, item) in spec.entries.sorted(by: { $0.0 < $1.0 }) {
            if Self.pending.contains(template) && Route.match(template) == nil { continue }
            for method in Self.methods {
                guard let responses = item[method]?["responses"]?.objectValue else { continue }
                operations += 1
                let documented = Set(responses.keys)
                var observed: [String: [String]] = [:]
                for probe in Self.probes {
                    observed[String(Self.status(probe, method: method.uppercased(), template: template)), default: []]
                        .append(probe.name)
                }
                let operation = "\(method.uppercased()) \(template)"
                for (status, probes) in observed.sorted(by: { $0.key < $1.key }) where !documented.contains(status) {
                    Issue.record("\(operation) answers \(status) (probes: \(probes.joined(separator: ", "))); docs/openapi.yaml does not document it")
                }
                for status in documented.sorted() where observed[status] == nil {
                    if Self.unreachable[status] != nil || Self.unreachable["\(method.uppercased()) \(status)"] != nil { continue }
                    Issue.record("docs/openapi.yaml documents \(status) for \(operation); no probe provoked it")
                }
            }
        }
        #expect(operations >= 35)
    }

    @Test("every problem type of ProblemResponses.swift is described in the spec")
    func problemTypes() throws {
        let source = try ["ProblemResponses.swift", "ProblemResponses+Access.swift", "ProblemResponses+Explain.swift"].map {
            try String(contentsOf: Self.root.appendingPathComponent("Sources/LayoutAPI/" + $0), encoding: .utf8)
        }.joined()
        let pattern = try NSRegularExpression(pattern: "type: \"([a-z-]+)\"")
        let types = pattern.matches(in: source, range: NSRange(source.startIndex..., in: source)).compactMap {
            Range($0.range(at: 1), in: source).map { String(source[$0]) }
        }
        #expect(types.count >= 15)
        for type in Set(types).sorted() {
            #expect(APIDescription.openAPIJSON.contains("/problems/\(type)"), "/problems/\(type) is not in docs/openapi.yaml")
        }
    }

    @Test("GET /openapi.json, /openapi.yaml and /schemas/layout-document.json serve the docs files, up to date")
    func served() throws {
        let c = Client()
        let json = c.send("GET", "/openapi.json")
        #expect(json.status == 200)
        #expect(json.header("Content-Type") == "application/json")
        #expect(json.header("Cache-Control") == "no-cache")
        let spec = try JSONParser.parse(json.body)
        #expect(spec["openapi"]?.stringValue == "3.1.0")
        #expect(spec["components"]?["schemas"]?["LayoutDocument"]?["$defs"]?["view"] != nil)
        let yaml = c.send("GET", "/openapi.yaml")
        #expect(yaml.status == 200)
        #expect(yaml.header("Content-Type") == "application/yaml")
        #expect(yaml.text.hasPrefix("openapi: 3.1.0\n"))
        let schema = c.send("GET", "/schemas/layout-document.json")
        #expect(schema.status == 200)
        #expect(schema.header("Content-Type") == "application/schema+json")
        // The schema is rebuilt from the bundled copy: the same members in the same order as the
        // file (JSONValue's == compares keys in order), `$id` and `$ref`s in the file's own form.
        let file = try String(contentsOf: Self.root.appendingPathComponent("docs/layout-document.schema.json"), encoding: .utf8)
        let served = try JSONParser.parse(schema.body)
        #expect(served == (try JSONParser.parse(file)),
                "Sources/LayoutAPI/APIDescription.swift is out of date: run scripts/generate-openapi")
        #expect(served["$id"]?.stringValue == "https://layoutd.invalid/schemas/layout-document.json")
        #expect(served["properties"]?["views"]?["$ref"]?.stringValue == "#/$defs/views")
        #expect(!schema.text.contains("#/components/"))
        #expect(c.send("HEAD", "/openapi.json").status == 200)
        // Computed once: a second request answers the very same bytes.
        #expect(c.send("GET", "/openapi.yaml").body == yaml.body)
        #expect(c.send("GET", "/schemas/layout-document.json").body == schema.body)

        // The bundled form is made from docs/openapi.yaml by the generator: it says whether the
        // embedded copy is what it would write now.
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", Self.root.appendingPathComponent("scripts/generate-openapi").path, "--check"]
        let err = Pipe()
        process.standardError = err
        try process.run()
        let message = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        #expect(process.terminationStatus == 0, "scripts/generate-openapi --check: \(message)")
    }

    @Test("GET /openapi.yaml, read by PyYAML, is the value GET /openapi.json answers")
    func yamlReadsBackAsTheJSON() throws {
        let c = Client()
        let yaml = c.send("GET", "/openapi.yaml")
        #expect(yaml.status == 200)
        let fromYAML = try JSONParser.parse(try YAMLReader.jsonText(ofYAML: yaml.text))
        let fromJSON = try JSONParser.parse(c.send("GET", "/openapi.json").body)
        #expect(fromYAML == fromJSON, "/openapi.yaml does not say what /openapi.json says")
        // Block style, for people: descriptions as literal blocks; the OPTIONS operations, aliases
        // in docs/openapi.yaml, written out in full.
        #expect(yaml.text.contains("\n  description: |\n    layoutd takes layout documents"))
        #expect(!yaml.text.contains("&id") && !yaml.text.contains("*id"))
    }
}
