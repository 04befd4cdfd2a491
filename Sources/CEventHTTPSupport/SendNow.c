// A complete reply, written by EventHTTP, sent before the callback that made it returns.
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
// and 2.2 alike), and the request's `chunked` flag in `event2/http_struct.h` (see below). The daemon's tests pin it down: keep-alive reuse, pipelined requests, HTTP/1.0,
// `Connection: close` from either side, and bodies larger than the socket takes at once
// (EventHTTPTests, EdgeHardeningTests, LibeventSupportTests).
#include "CEventHTTPSupport.h"

#include <stdatomic.h>

#include <event2/buffer.h>
#include <event2/bufferevent.h>
#include <event2/event.h>
#include <event2/http.h>
#include <event2/http_struct.h>

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
    // our body). The body is read by now; the flag is cleared through `event2/http_struct.h`, as
    // RequestFields.c reads the version (EdgeHardeningTests' chunked requests pin it down).
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
