// Faster versions of four functions that evhttp calls for every request and response.
// See FastPaths.c for why and how; docs/benchmarks.md ("HTTP edge") for what they save.
// Also evhttp's own error replies as problem+json instead of HTML (ErrorReplies.c).
#ifndef LAYOUTD_CEVHTTPFASTPATHS_H
#define LAYOUTD_CEVHTTPFASTPATHS_H

#include <stdint.h>

struct evbuffer;

/// Which of this process's fast paths wrote a line since `layoutd_fast_paths_reset()`: a test
/// reads them to check that evhttp's own calls reach the overrides.
enum { LAYOUTD_FAST_HEADER_LINE = 1, LAYOUTD_FAST_STATUS_LINE = 2, LAYOUTD_FAST_HTTP_VERSION = 4,
       LAYOUTD_FAST_READ_SIZE = 8, LAYOUTD_FAST_SENT_AT_ONCE = 16,
       LAYOUTD_FAST_SAME_INTEREST = 32, LAYOUTD_PROBLEM_REPLY = 64 };
int layoutd_fast_paths_used(void);
void layoutd_fast_paths_reset(void);
/// Records that a fast path ran (for `layoutd_fast_paths_used`).
void layoutd_note_fast_path(int path);

struct evhttp_request;
/// `evhttp_send_reply(req, code, reason, NULL)`, then the reply written to the socket at once
/// when it takes all of it, and the request finished there and then (see SendNow.c). `req` must
/// not be used after the call. Returns 1 when the reply went out at once, 0 when libevent
/// sends it (or the rest of it) later, as `evhttp_send_reply` alone would.
int layoutd_send_reply_now(struct evhttp_request *req, int code, const char *reason);

/// The CPUs this process may run on (its affinity mask), else the online CPUs; at least one.
int layoutd_available_cpus(void);

/// The overridden comparison, under its libevent name (declared here for the tests).
int evutil_ascii_strcasecmp(const char *s1, const char *s2);

/// `evbuffer_add_printf` with evhttp's header-line, status-line and chunk-size formats: a
/// variadic function does not import into Swift, and the tests call it as evhttp does.
int layoutd_test_add_header_line(struct evbuffer *buf, const char *key, const char *value);
int layoutd_test_add_status_line(struct evbuffer *buf, int major, int minor, int code, const char *reason);
int layoutd_test_add_chunk_size(struct evbuffer *buf, unsigned size);
/// `sscanf(text, "HTTP/%d.%d%c", major, minor, ch)` as evhttp calls it (through the override).
int layoutd_test_scan_http_version(const char *text, int *major, int *minor, char *ch);

/// `ioctl(fd, FIONREAD, count)` called from outside libevent (the kernel's answer).
int layoutd_test_bytes_readable(int fd, int *count);

/// <sys/epoll.h>'s values for the tests (Swift's Glibc module does not bring epoll in); checked
/// against the header in EpollInterest.c.
enum { LAYOUTD_EPOLL_CTL_ADD = 1, LAYOUTD_EPOLL_CTL_DEL = 2, LAYOUTD_EPOLL_CTL_MOD = 3 };
enum { LAYOUTD_EPOLLIN = 0x001, LAYOUTD_EPOLLOUT = 0x004 };
#define LAYOUTD_EPOLLET (1u << 31)
/// `epoll_create1(0)`.
int layoutd_test_epoll_create(void);
/// `epoll_ctl(epfd, op, fd, {events, data})` through the override, as if called by libevent when
/// `as_libevent` is 1 (see EpollInterest.c), as any other caller when 0.
int layoutd_test_epoll_ctl(int epfd, int op, int fd, uint32_t events, uint64_t data, int as_libevent);
/// `EPOLL_CTL_DEL` straight to the kernel, behind the override's back.
int layoutd_test_epoll_del_directly(int epfd, int fd);

#endif
