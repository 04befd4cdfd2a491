// C helpers for EventHTTP where Swift cannot reach (variadic or macro-only C APIs). Nothing here
// overrides a symbol of another library: every function has a `layoutd_` name and is called
// explicitly.
#ifndef LAYOUTD_CEVENTHTTPSUPPORT_H
#define LAYOUTD_CEVENTHTTPSUPPORT_H

#include <stddef.h>

struct evhttp_request;
struct evbuffer;

/// The output buffer of `req`'s connection, where a reply's head and body are put before
/// `layoutd_reply_finish`; NULL when the connection is gone. See SendNow.c.
struct evbuffer *layoutd_reply_output(struct evhttp_request *req);

/// Sends what `layoutd_reply_output(req)` holds (a whole reply), at once when the socket takes all
/// of it, and finishes the request with evhttp (it frees `req`, then closes the connection or reads
/// the next request); with `close_after`, the connection closes after the reply. `req` must not be
/// used after the call. Returns 1 when the reply went out at once, 0 when libevent sends the rest.
int layoutd_reply_finish(struct evhttp_request *req, int close_after);

/// Whether `layoutd_reply_finish` has written a reply at once since the last reset (for a test).
int layoutd_reply_sent_at_once(void);
void layoutd_reply_sent_at_once_reset(void);

/// The HTTP version of `req`'s request line, as libevent parsed it (`HTTP/%d.%d`; libevent itself
/// refuses only a major version above 1). See RequestFields.c.
void layoutd_request_version(const struct evhttp_request *req, int *major, int *minor);

/// Makes the reply to `req` an HTTP/1.1 one (its status line follows the request's version) and
/// lets `Connection: close` close a CONNECT request's connection too. For replies that close.
void layoutd_request_answer_as_http11(struct evhttp_request *req);

/// Looks at the complete header block at the start of `input` (a request libevent has not read
/// yet) and changes it in place so that libevent refuses it at once: 1 for a `Content-Length` that
/// is not one plain number (400), 2 for `Expect: 100-continue` with a length over
/// `max_body_bytes` (417); 0 otherwise. Also turns NULs in header lines into 0x01, blanks chunk
/// extensions and spoils `0x` chunk sizes of a chunked body already in the buffer. See Prescan.c.
int layoutd_prescan_request(struct evbuffer *input, size_t max_header_bytes, unsigned long long max_body_bytes);

/// The CPUs this process may run on (its affinity mask), else the online CPUs; at least one.
int layoutd_available_cpus(void);

#endif
