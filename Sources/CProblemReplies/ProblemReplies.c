// The errors evhttp answers by itself, as problem+json instead of HTML.
//
// A request that never reaches our callback is answered by libevent's `evhttp_send_error`: a
// request line or headers it cannot parse or that are over `maxHeaderBytes` (400), a body far
// over the body limit (413, read and dropped), a method outside the allowed set (501). It writes a
// `text/html` page, where every other error of the API is `application/problem+json` (RFC 9457,
// docs/http.md "Errors"). libevent 2.1 has no hook for these replies, but it calls
// `evhttp_send_error` through its PLT, so this definition in the executable takes its place for
// libevent's own calls (ELF symbol interposition); layoutd itself never calls it. It is the only
// symbol of another library that layoutd defines, and only the `layoutd` executable links it (the
// test binaries run with libevent's own): that is why it is not in CEventHTTPSupport's
// LibeventInternals.c with the rest of what leans on libevent's internals. A libevent that binds
// its calls internally would silently bypass it, so `layoutd serve` asks at start-up (EventHTTP's
// `LibeventInternals`, the one Swift owner of these internals) and refuses to start when the
// override is not in effect.
//
// The request's fields without a getter (`chunked`, `body_size`/`ntoread`, the version, CONNECT's
// method) are read and written through LibeventInternals.c's accessors, not `http_struct.h`: one
// file holds the struct layout, and the start-up probe checks it. The daemon's
// TransportErrorTests pin down the replies that depend on them.
//
// The reply keeps everything the original does but the page: the same status, `Connection: close`
// (libevent closes these connections anyway: it stopped reading mid-request), HTTP/1.1 when the
// request line was not read. Only the body and its `Content-Type` differ.
#include "CProblemReplies.h"
#include "LibeventInternals.h"

#include <event2/buffer.h>
#include <event2/http.h>
#include <stdio.h>

/// Type, title and detail of the problem for libevent's `code` on `req`.
static void describe(const struct evhttp_request *req, int code, const char **type, const char **title,
                     char *detail, size_t detail_size) {
    switch (code) {
    case HTTP_ENTITYTOOLARGE:
        // Only a body gets 413 from evhttp (headers over the limit are a 400, below). With
        // lingering close it was read and dropped first: `body_size` is what arrived.
        *type = "/problems/body-too-large";
        *title = "Body too large";
        if (layoutd_request_chunked(req)) {
            // libevent 2.1 reports a chunk size it cannot read (`zz`, `-2`, and `0x2` as
            // CEventHTTPSupport's Prescan.c leaves it) exactly as a chunk over the limit
            // (evhttp_handle_chunked_read); nothing left on the request tells them apart
            // (docs/robustness.md).
            snprintf(detail, detail_size, "the chunked body grew far over the limit, or a chunk size line is not "
                                          "plain hex digits; it was dropped");
        } else {
            snprintf(detail, detail_size, "the body has %lld bytes, far over the limit; it was dropped",
                     layoutd_request_body_bytes(req));
        }
        return;
    case HTTP_EXPECTATIONFAILED:
        // Also what CEventHTTPSupport's Prescan.c turns `Expect: 100-continue` into when the
        // declared body is over the limit: refused before the client sends it.
        *type = "/problems/expectation-failed";
        *title = "Expectation failed";
        snprintf(detail, detail_size, "the server meets Expect: 100-continue only, and only for a body within "
                                      "its limit; send the request without Expect to get its answer");
        return;
    case HTTP_NOTIMPLEMENTED:
        *type = "/problems/method-not-implemented";
        *title = "Method not implemented";
        snprintf(detail, detail_size, "the server implements GET, HEAD, POST, PUT, PATCH, DELETE and OPTIONS");
        return;
    case HTTP_BADREQUEST:
        *type = "/problems/bad-request";
        *title = "Bad request";
        snprintf(detail, detail_size, "the request line or headers are not valid HTTP/1.x, or are longer than "
                                      "the server accepts (maxHeaderBytes)");
        return;
    default:
        *type = "/problems/http-error";
        *title = "HTTP error";
        snprintf(detail, detail_size, "the request could not be read");
        return;
    }
}

static const char *reason_phrase(int code) {
    switch (code) {
    case HTTP_BADREQUEST: return "Bad Request";
    case HTTP_ENTITYTOOLARGE: return "Content Too Large";
    case HTTP_EXPECTATIONFAILED: return "Expectation Failed";
    case HTTP_NOTIMPLEMENTED: return "Not Implemented";
    default: return "Error";
    }
}

static layoutd_problem_headers_fn extra_headers = NULL;

void layoutd_problem_replies_set_headers(layoutd_problem_headers_fn headers) { extra_headers = headers; }

static void add_header(void *context, const char *name, const char *value) {
    evhttp_add_header((struct evkeyvalq *)context, name, value);
}

void evhttp_send_error(struct evhttp_request *req, int error, const char *reason) {
    const char *type, *title;
    char detail[160];
    describe(req, error, &type, &title, detail, sizeof detail);
    if (reason == NULL) reason = reason_phrase(error);

    struct evbuffer *body = evbuffer_new();
    if (body == NULL) {
        // As libevent does when it cannot allocate the page: drop the connection.
        evhttp_connection_free(evhttp_request_get_connection(req));
        return;
    }
    // Every string above is plain ASCII without quotes or backslashes: nothing to escape. No body
    // for HEAD (libevent would send one anyway: its page went out on HEAD too).
    if (evhttp_request_get_command(req) != EVHTTP_REQ_HEAD) {
        evbuffer_add_printf(body, "{\"type\":\"%s\",\"title\":\"%s\",\"status\":%d,\"detail\":\"%s\",\"errors\":[]}",
                            type, title, error, detail);
    }
    // What libevent's page does (evhttp_send_page_): HTTP/1.1 when the request line was not read,
    // its own headers only, and the connection closed after the reply.
    // Also for a version we do not speak (HTTP/0.9, HTTP/1.10): libevent would echo it in the
    // status line. And CONNECT: evhttp never closes its connection after a reply (it expects a
    // tunnel) unless the method is something else.
    int major, minor;
    layoutd_request_version(req, &major, &minor);
    if (major != 1 || minor > 1) layoutd_request_set_version(req, 1, 1);
    layoutd_request_answer_connect_as_get(req);
    struct evkeyvalq *headers = evhttp_request_get_output_headers(req);
    evhttp_clear_headers(headers);
    evhttp_add_header(headers, "Content-Type", "application/problem+json");
    evhttp_add_header(headers, "Connection", "close");
    evhttp_add_header(headers, "X-Content-Type-Options", "nosniff");
    // CORS (the daemon's settings): a page on another origin reads this status only when the
    // reply names its origin. The input headers are there when the request line and headers were
    // read (a 413 or 501); when they were not, there is no Origin to answer.
    if (extra_headers != NULL) {
        const char *origin = evhttp_find_header(evhttp_request_get_input_headers(req), "Origin");
        extra_headers(origin, add_header, headers);
    }
    evhttp_send_reply(req, error, reason, body);
    evbuffer_free(body);
}

int layoutd_problem_replies_linked(void) { return 1; }
