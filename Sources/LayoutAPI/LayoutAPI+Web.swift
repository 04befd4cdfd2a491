import LayoutEngine
import Primitives
import WebAssets

extension LayoutAPI {
    // MARK: GET /v1/sessions/{id}/render.svg, POST /v1/render.svg

    /// The session drawn as SVG (absolute coordinates); `ETag`, 304 on a matching `If-None-Match`.
    func renderSession(_ id: String, _ request: APIRequest) -> APIResponse {
        let session: Session
        switch existingSession(id, mayWait: request.mayWait) {
        case .success(let found): session = found
        case .failure(let failure): return failure.response
        }
        let taken: (tag: SessionTag, svg: String)??
        do throws(Failure) {
            taken = try session.withState(mayWait: request.mayWait) { st in
                guard st.alive else { return nil }
                return (st.tag, SVGRenderer.render(document: st.system.document,
                                                        frames: st.system.frames(.absolute),
                                                        diagnostics: st.diagnostics))
            }
        } catch {
            return error.response
        }
        guard let taken else { return .waitNeeded }
        guard let snapshot = taken else { return Problems.sessionNotFound(id) }
        if let notModified = EntityTagCondition.notModified(request, snapshot.tag) { return notModified }
        let etag = EntityTagCondition.etag(snapshot.tag)
        return APIResponse(status: 200, headers: [("Content-Type", SVGRenderer.mediaType), ("ETag", etag),
                                                  ("Content-Security-Policy", Self.picturePolicy)],
                           body: Array(snapshot.svg.utf8))
    }

    /// A document (the body, as for `POST /v1/solve`) solved and drawn as SVG; errors as there.
    func renderDocument(_ request: APIRequest, _ options: QueryOptions) -> APIResponse {
        do throws(Failure) {
            let document = try validate(try parseJSON(request.body))
            let system = LayoutSystem(document: document)
            APIMetrics.counters.add(APIMetrics.coldSolves)
            let diagnostics = system.diagnostics
            if options.strict && !diagnostics.broken.isEmpty { return Problems.strictConflict(diagnostics.broken) }
            let svg = SVGRenderer.render(document: document, frames: system.frames(.absolute),
                                         diagnostics: diagnostics)
            return APIResponse(status: 200, headers: [("Content-Type", SVGRenderer.mediaType),
                                                      ("Content-Security-Policy", Self.picturePolicy)],
                               body: Array(svg.utf8))
        } catch {
            return error.response
        }
    }

    // MARK: GET /, GET /client.js (the content and its policies: the WebAssets module)

    static let playgroundBytes = Array(WebAssets.playgroundHTML.utf8)
    static let clientScriptBytes = Array(WebAssets.clientJS.utf8)
    static let playgroundScriptBytes = Array(WebAssets.playgroundJS.utf8)

    // MARK: GET /openapi.json, /openapi.yaml, /schemas/layout-document.json (scripts/generate-openapi)

    static var openAPIJSONBytes: [UInt8] { APIDescription.openAPIJSONBytes }
    static var openAPIYAMLBytes: [UInt8] { APIDescription.openAPIYAMLBytes }
    static var layoutDocumentSchemaBytes: [UInt8] { APIDescription.layoutDocumentSchemaBytes }

    static var playgroundPolicy: String { WebAssets.playgroundPolicy }
    static var picturePolicy: String { WebAssets.picturePolicy }

    /// The client's `ETag`: a hash of its bytes, so that it changes exactly when a new daemon serves
    /// another client (a page importing `/client.js` revalidates for a few bytes instead of the script).
    static let clientScriptETag = contentTag(clientScriptBytes)

    /// `GET /client.js`: the script with its `ETag`, or 304 when `If-None-Match` names it (or is `*`).
    static func clientScript(_ request: APIRequest) -> APIResponse {
        if let condition = EntityTagCondition.parse(request.headers(named: "If-None-Match")),
           condition.any || condition.tags.contains(where: { "\"\($0.value)\"" == clientScriptETag }) {
            return APIResponse(status: 304, headers: [("ETag", clientScriptETag), ("Cache-Control", "no-cache")])
        }
        var response = asset(clientScriptBytes, contentType: "text/javascript; charset=utf-8")
        response.addHeader("ETag", clientScriptETag)
        return response
    }

    /// A strong entity tag for fixed content: `"c-"` and its 64-bit FNV-1a hash in hex. Not a
    /// security measure, only a change detector; the prefix keeps it apart from sessions' tags.
    static func contentTag(_ bytes: [UInt8]) -> String {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in bytes {
            hash = (hash ^ UInt64(byte)) &* 0x0000_0100_0000_01b3
        }
        let big = (0..<8).map { UInt8(truncatingIfNeeded: hash >> (56 - 8 * UInt64($0))) }
        return "\"c-" + Hex.encode(big) + "\""
    }

    /// A static asset (the playground page, the JS client), revalidated on every use.
    static func asset(_ body: [UInt8], contentType: String) -> APIResponse {
        APIResponse(status: 200, headers: [("Content-Type", contentType), ("Cache-Control", "no-cache")],
                    body: body)
    }
}
