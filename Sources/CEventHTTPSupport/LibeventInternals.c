// Every use of libevent 2.1 beyond its documented API, in one file (issue 28): the fields of
// `struct evhttp_request` read and written through `event2/http_struct.h` (public in 2.1, but
// marked as subject to change), evhttp's own callbacks on a connection's bufferevent, and the
// reply path that leans on how `evhttp_send_reply_end` finishes a reply. Nothing else in the
// package includes `http_struct.h` or calls `bufferevent_getcb`.
//
// The one other reach into libevent, the `evhttp_send_error` override (CProblemReplies), cannot
// live here: it defines a symbol for the whole process, and this target is linked by the test
// binaries too, whose in-process servers must run with libevent's own. It reads the request only
// through the accessors below.
//
// EventHTTP's `LibeventInternals` (Swift) owns all of it: its wrappers are the only callers, and
// at start-up `layoutd serve` checks there the libevent version (the header this file was compiled
// against and the library loaded) and runs probes against a real request (see
// `layoutd_request_layout_problem`); when one does not hold, the daemon refuses to start.
#include "CEventHTTPSupport.h"

#include <stdatomic.h>
#include <stdio.h>

#include <event2/buffer.h>
#include <event2/bufferevent.h>
#include <event2/event.h>
#include <event2/http.h>
#include <event2/http_struct.h>

// MARK: the version

unsigned int layoutd_libevent_header_version(void) { return (unsigned int)LIBEVENT_VERSION_NUMBER; }

// MARK: request fields libevent 2.1 has no getter or setter for

void layoutd_request_version(const struct evhttp_request *req, int *major, int *minor) {
    *major = req->major;
    *minor = req->minor;
}

void layoutd_request_set_version(struct evhttp_request *req, int major, int minor) {
    // libevent writes the reply's status line with the request's version (`HTTP/%d.%d`).
    req->major = (char)major;
    req->minor = (char)minor;
}

void layoutd_request_answer_connect_as_get(struct evhttp_request *req) {
    // evhttp never closes a CONNECT connection after the reply (it expects a tunnel), whatever
    // `Connection: close` says; we never tunnel, so the request is answered as any other method.
    if (req->type == EVHTTP_REQ_CONNECT) req->type = EVHTTP_REQ_GET;
}

void layoutd_request_answer_as_http11(struct evhttp_request *req) {
    // A request line of HTTP/1.10 or HTTP/0.9 would get an invalid or pre-1.0 status line back.
    layoutd_request_set_version(req, 1, 1);
    layoutd_request_answer_connect_as_get(req);
}

int layoutd_request_chunked(const struct evhttp_request *req) { return req->chunked ? 1 : 0; }

long long layoutd_request_body_bytes(const struct evhttp_request *req) {
    // With lingering close a body over the limit is read and dropped: what arrived, plus what
    // libevent still means to read and drop.
    return (long long)req->body_size + (long long)(req->ntoread > 0 ? req->ntoread : 0);
}

int layoutd_request_layout_problem(const struct evhttp_request *req, char *problem, size_t size) {
    // The fields read above sit between fields that have public getters: when every getter
    // agrees with the struct as this file sees it, the struct is laid out as the header says.
    // The values of `major`, `minor`, `chunked` and `body_size` are compared with a request of
    // known shape by the Swift probe.
    const char *field = NULL;
    struct evhttp_request *r = (struct evhttp_request *)req;
    if (req->evcon != evhttp_request_get_connection(r)) field = "evcon";
    else if (req->input_headers != evhttp_request_get_input_headers(r)) field = "input_headers";
    else if (req->output_headers != evhttp_request_get_output_headers(r)) field = "output_headers";
    else if ((int)req->type != (int)evhttp_request_get_command(r)) field = "type";
    else if (req->uri != evhttp_request_get_uri(r)) field = "uri";
    else if (req->input_buffer != evhttp_request_get_input_buffer(r)) field = "input_buffer";
    else if (req->output_buffer != evhttp_request_get_output_buffer(r)) field = "output_buffer";
    if (field == NULL) return 0;
    snprintf(problem, size, "struct evhttp_request.%s is not where event2/http_struct.h puts it", field);
    return 1;
}

// MARK: evhttp's callbacks on a connection's bufferevent

struct evhttp_connection *layoutd_bufferevent_http_connection(struct bufferevent *bev, int *reading) {
    // evhttp sets its callbacks with the `evhttp_connection` as their argument; `bufferevent_free`
    // (evhttp giving up on the connection) clears them, read callback included.
    bufferevent_data_cb readcb;
    void *arg;
    bufferevent_getcb(bev, &readcb, NULL, NULL, &arg);
    *reading = readcb != NULL;
    return (struct evhttp_connection *)arg;
}

// MARK: a complete reply, sent before the callback that made it returns
//
// EventHTTP writes a reply's head itself (ReplyHead.swift) and puts it and the body in the
// connection's output buffer (`layoutd_reply_output`). `layoutd_reply_finish` then writes what
// the buffer holds at once (`evbuffer_write`, the `writev` libevent would make a turn later, once
// epoll said the socket is writable: a keep-alive socket nearly always has room for a reply there
// and then) and tells evhttp the reply is complete with `evhttp_send_reply_end`. With the
// connection's output empty, that is evhttp's own end of a reply: it frees the request and either
// closes the connection (HTTP/1.0 without keep-alive, or `Connection: close` in the request or in
// the reply's headers) or starts reading the next request. evhttp never formats a head here.
//
// When the socket takes only part (a large body, a slow reader) or fails, the rest is left to the
// bufferevent as evhttp leaves its own replies: reading switched off (only a close is noticed),
// writing switched on, and evhttp's write callback ends the request once the buffer drained (the
// callback `evhttp_send_reply_end` sets for a reply still being written), or its error callback
// fails the connection.
//
// What this relies on beyond the calls' documentation: `evhttp_send_reply_end` on a reply that
// was not started with `evhttp_send_reply_start` (not chunked) finishes it as above (libevent 2.1
// and 2.2 alike), and the request's `chunked` flag. The start-up probe answers a chunked request
// and a pipelined one this way and checks the bytes; the tests pin the rest down: keep-alive
// reuse, pipelined requests, HTTP/1.0, `Connection: close` from either side, and bodies larger
// than the socket takes at once (EventHTTPTests, EdgeHardeningTests, LibeventSupportTests).

// Set when a reply went out at once, for a test. Set once and then only read: a counter bumped by
// every worker on every reply would move its cache line between the cores.
static _Atomic int sent_at_once;

int layoutd_reply_sent_at_once(void) { return atomic_load_explicit(&sent_at_once, memory_order_relaxed); }
void layoutd_reply_sent_at_once_reset(void) { atomic_store_explicit(&sent_at_once, 0, memory_order_relaxed); }

static struct bufferevent *reply_bufferevent(struct evhttp_request *req) {
    struct evhttp_connection *connection = evhttp_request_get_connection(req);
    return connection != NULL ? evhttp_connection_get_bufferevent(connection) : NULL;
}

struct evbuffer *layoutd_reply_output(struct evhttp_request *req) {
    struct bufferevent *bev = reply_bufferevent(req);
    return bev != NULL ? bufferevent_get_output(bev) : NULL;
}

int layoutd_reply_finish(struct evhttp_request *req, int close_after) {
    // One flag of the request serves both ways: set while a chunked request body was read, it
    // would make `evhttp_send_reply_end` end the reply as a chunked one (a stray `0` chunk after
    // our body). The body is read by now.
    req->chunked = 0;
    struct bufferevent *bev = reply_bufferevent(req);
    if (bev == NULL) {
        // The connection is gone: evhttp frees the request.
        evhttp_send_reply_end(req);
        return 0;
    }
    // evhttp decides from the request's headers, the reply's included, whether the connection
    // closes once the reply is out.
    if (close_after) evhttp_add_header(evhttp_request_get_output_headers(req), "Connection", "close");
    struct evbuffer *output = bufferevent_get_output(bev);
    evutil_socket_t fd = bufferevent_getfd(bev);
    if (fd >= 0 && evbuffer_get_length(output) > 0) (void)evbuffer_write(output, fd);
    if (evbuffer_get_length(output) == 0) {
        if (!atomic_load_explicit(&sent_at_once, memory_order_relaxed)) {
            atomic_store_explicit(&sent_at_once, 1, memory_order_relaxed);
        }
        // Frees the request and, for a connection that closes after this reply, the connection;
        // neither is touched after it.
        evhttp_send_reply_end(req);
        return 1;
    }
    // The rest when the socket is writable, as evhttp writes its own replies.
    bufferevent_data_cb readcb, writecb;
    bufferevent_event_cb eventcb;
    void *arg;
    bufferevent_getcb(bev, &readcb, &writecb, &eventcb, &arg);
    (void)readcb;
    bufferevent_setcb(bev, NULL, writecb, eventcb, arg);
    evhttp_send_reply_end(req);
    bufferevent_enable(bev, EV_WRITE);
    return 0;
}
