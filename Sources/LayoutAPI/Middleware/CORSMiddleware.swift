/// The CORS headers of the configured origins (`CORS`) on every answer, a preflight's included.
/// Outside access control: a browser reads a 401 or a 429 only when it carries them.
struct CORSMiddleware: APIMiddleware {
    let cors: CORS

    func handle(_ request: APIRequest, _ context: inout RequestContext,
                next: (APIRequest, inout RequestContext) -> APIResponse) -> APIResponse {
        var response = next(request, &context)
        if response.mustWait { return response }
        cors.decorate(&response, for: request, preflight: request.method == "OPTIONS" ? context.route : nil)
        return response
    }
}
