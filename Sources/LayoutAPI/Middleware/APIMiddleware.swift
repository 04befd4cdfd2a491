/// What a request carries through the middlewares besides itself: its route, matched once, and,
/// with access control, who is asking (`AccessControlMiddleware` sets it).
struct RequestContext {
    let route: Route?
    var principal: Principal?
}

/// One HTTP concern wrapped around the routes, in the manner of Hummingbird's `RouterMiddleware`:
/// it may answer the request itself, change what the next one sees, or change the answer on its
/// way out. Each concern (request ids, CORS, access control) is one small type, and the routes
/// know nothing of them.
///
/// An answer with `mustWait` set (the request was made on an event loop and has to wait for the
/// store) is not an answer: the caller makes the same request again from a thread that may wait,
/// and it passes through every middleware again. A middleware passes such an answer through
/// unchanged and undoes anything it counted (`AccessControlMiddleware` gives the rate limiter's
/// token back).
protocol APIMiddleware: Sendable {
    func handle(_ request: APIRequest, _ context: inout RequestContext,
                next: (APIRequest, inout RequestContext) -> APIResponse) -> APIResponse
}

/// Middlewares in order, outermost first, around an endpoint.
struct MiddlewareChain: Sendable {
    let middlewares: [any APIMiddleware]

    func run(_ request: APIRequest, _ context: inout RequestContext,
             endpoint: (APIRequest, inout RequestContext) -> APIResponse) -> APIResponse {
        func step(_ i: Int, _ request: APIRequest, _ context: inout RequestContext) -> APIResponse {
            guard i < middlewares.count else { return endpoint(request, &context) }
            return middlewares[i].handle(request, &context) { request, context in step(i + 1, request, &context) }
        }
        return step(0, request, &context)
    }
}
