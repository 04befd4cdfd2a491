// libevent 2.1 beyond its documented API (LibeventInternals.c): request fields without a getter,
// evhttp's callbacks on a connection's bufferevent, a reply sent at once. Called only through
// EventHTTP's `LibeventInternals` and by CProblemReplies' `evhttp_send_error`.
#ifndef LAYOUTD_LIBEVENTINTERNALS_H
#define LAYOUTD_LIBEVENTINTERNALS_H

#include <stddef.h>

struct evhttp_request;
struct evhttp_connection;
struct evbuffer;
struct bufferevent;

/// `LIBEVENT_VERSION_NUMBER` of the headers LibeventInternals.c was compiled against (the struct
/// layout it assumes), to compare with `event_get_version_number()` of the library loaded.
unsigned int layoutd_libevent_header_version(void);

/// The HTTP version of `req`'s request line, as libevent parsed it (`HTTP/%d.%d`; libevent itself
/// refuses only a major version above 1).
void layoutd_request_version(const struct evhttp_request *req, int *major, int *minor);

/// Sets the version libevent writes in the status line of `req`'s reply.
void layoutd_request_set_version(struct evhttp_request *req, int major, int minor);

/// Lets `Connection: close` close a CONNECT request's connection (evhttp expects a tunnel).
void layoutd_request_answer_connect_as_get(struct evhttp_request *req);

/// Makes the reply to `req` an HTTP/1.1 one (its status line follows the request's version) and
/// lets `Connection: close` close a CONNECT request's connection too. For replies that close.
void layoutd_request_answer_as_http11(struct evhttp_request *req);

/// Whether `req` has (or had, while its body was read) a chunked body.
int layoutd_request_chunked(const struct evhttp_request *req);

/// The body bytes libevent read for `req`, plus those it still means to read (and drop).
long long layoutd_request_body_bytes(const struct evhttp_request *req);

/// 0 when every field of `req` that has a public getter is where this file's view of the struct
/// puts it; else 1 and a sentence naming the first that is not, in `problem`.
int layoutd_request_layout_problem(const struct evhttp_request *req, char *problem, size_t size);

/// The `evhttp_connection` whose callbacks `bev` carries (evhttp's callback argument), and in
/// `reading` whether evhttp's read callback is set (none: evhttp gave up on the connection).
struct evhttp_connection *layoutd_bufferevent_http_connection(struct bufferevent *bev, int *reading);

/// The output buffer of `req`'s connection, where a reply's head and body are put before
/// `layoutd_reply_finish`; NULL when the connection is gone.
struct evbuffer *layoutd_reply_output(struct evhttp_request *req);

/// Sends what `layoutd_reply_output(req)` holds (a whole reply), at once when the socket takes all
/// of it, and finishes the request with evhttp (it frees `req`, then closes the connection or reads
/// the next request); with `close_after`, the connection closes after the reply. `req` must not be
/// used after the call. Returns 1 when the reply went out at once, 0 when libevent sends the rest.
int layoutd_reply_finish(struct evhttp_request *req, int close_after);

/// Whether `layoutd_reply_finish` has written a reply at once since the last reset (for a test).
int layoutd_reply_sent_at_once(void);
void layoutd_reply_sent_at_once_reset(void);

#endif
