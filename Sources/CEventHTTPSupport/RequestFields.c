// The request fields libevent 2.1 has no getter or setter for: the HTTP version of the request
// line, and the method type that decides whether `Connection: close` is honoured.
//
// Read and written through `event2/http_struct.h` (public in 2.1, marked as subject to change):
// `major`, `minor` and `type` of `struct evhttp_request`. The daemon tests that depend on them
// (EdgeHardeningTests: a 505 whose status line is HTTP/1.1 whatever version was sent, CONNECT's 501
// closing the connection) pin them down: a libevent whose struct moved them fails there.
#include "CEventHTTPSupport.h"

#include <event2/http.h>
#include <event2/http_struct.h>

void layoutd_request_version(const struct evhttp_request *req, int *major, int *minor) {
    *major = req->major;
    *minor = req->minor;
}

void layoutd_request_answer_as_http11(struct evhttp_request *req) {
    // libevent writes the reply's status line with the request's version (`HTTP/%d.%d`): a request
    // line of HTTP/1.10 or HTTP/0.9 would get an invalid or pre-1.0 status line back.
    req->major = 1;
    req->minor = 1;
    // evhttp never closes a CONNECT connection after the reply (it expects a tunnel), whatever
    // `Connection: close` says; we never tunnel, so the request is answered as any other method.
    if (req->type == EVHTTP_REQ_CONNECT) req->type = EVHTTP_REQ_GET;
}
