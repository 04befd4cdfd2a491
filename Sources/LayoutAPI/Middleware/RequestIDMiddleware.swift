/// Every answer carries the request's id (`RequestID`) in `X-Request-Id`, and every problem body
/// names it (`requestId`). Outermost, so that answers of the other middlewares (a 401, a 429)
/// carry it too.
struct RequestIDMiddleware: APIMiddleware {
    func handle(_ request: APIRequest, _ context: inout RequestContext,
                next: (APIRequest, inout RequestContext) -> APIResponse) -> APIResponse {
        var response = next(request, &context)
        if response.mustWait { return response }
        let requestID = RequestID.resolve(request)
        // Status first: a string comparison on every answer showed in instruction counts.
        if response.status >= 400, response.headers.first?.value == MediaType.problem {
            RequestID.addToProblem(&response.body, id: requestID)
        }
        response.headers.append((RequestID.header, requestID))
        return response
    }
}
