// A complete reply written to its socket before the callback that made it returns.
//
// evhttp sends a reply by queueing it on the connection's bufferevent and enabling the
// bufferevent's write event; the bytes go out on the next turn of the loop, once epoll says the
// socket is writable, and the write callback then tells evhttp the reply is done (it frees the
// request and goes back to reading). With the epoll backend that is two `epoll_ctl` calls per
// request (write interest on, then off again) and an extra turn of the loop, although a
// keep-alive socket nearly always has room for a reply there and then.
//
// `layoutd_send_reply_now` sends the reply as evhttp does, then writes what the bufferevent
// holds at once (`evbuffer_write`, the same `writev` libevent would make) and, when everything
// went, runs the bufferevent's write callback itself (`bufferevent_trigger`): evhttp finishes
// the request exactly as it would have a turn later, and the write interest it switched on is
// switched off again within the same turn, which libevent's epoll change list folds into one
// `epoll_ctl` at most (the read interest switched back on). When the socket takes only part (a large body, a slow reader) or fails, the rest is left to the
// bufferevent as before: libevent writes it when the socket is writable, or reports the error.
#include "CEventHTTPSupport.h"

#include <stdatomic.h>

#include <event2/buffer.h>
#include <event2/bufferevent.h>
#include <event2/event.h>
#include <event2/http.h>

// Set when a reply went out at once, for a test. Set once and then only read: a counter bumped by
// every worker on every reply would move its cache line between the cores.
static _Atomic int sent_at_once;

int layoutd_reply_sent_at_once(void) { return atomic_load_explicit(&sent_at_once, memory_order_relaxed); }
void layoutd_reply_sent_at_once_reset(void) { atomic_store_explicit(&sent_at_once, 0, memory_order_relaxed); }

int layoutd_send_reply_now(struct evhttp_request *req, int code, const char *reason) {
    // Looked up before the reply: once it is finished, `req` is freed.
    struct evhttp_connection *connection = evhttp_request_get_connection(req);
    struct bufferevent *bev = connection != NULL ? evhttp_connection_get_bufferevent(connection) : NULL;
    evhttp_send_reply(req, code, reason, NULL);
    if (bev == NULL) return 0;
    struct evbuffer *output = bufferevent_get_output(bev);
    evutil_socket_t fd = bufferevent_getfd(bev);
    if (fd < 0 || evbuffer_get_length(output) == 0) return 0;
    if (evbuffer_write(output, fd) < 0 || evbuffer_get_length(output) != 0) return 0;
    if (!atomic_load_explicit(&sent_at_once, memory_order_relaxed)) {
        atomic_store_explicit(&sent_at_once, 1, memory_order_relaxed);
    }
    // May free the request and, for a connection that closes after this reply, the connection;
    // neither is touched after it.
    bufferevent_trigger(bev, EV_WRITE, 0);
    return 1;
}
