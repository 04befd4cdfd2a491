// Faster versions of two libevent 2.1 functions that evhttp calls for every request and response.
// See FastPaths.c for why and how; docs/benchmarks.md ("HTTP edge") for what they save.
#ifndef LAYOUTD_CEVHTTPFASTPATHS_H
#define LAYOUTD_CEVHTTPFASTPATHS_H

#include <stdint.h>

struct evbuffer;

/// How many header lines and status lines this process's `evbuffer_add_printf` wrote without
/// printf (relaxed counters: a test reads them to check the override is in effect).
uint64_t layoutd_fast_header_lines(void);
uint64_t layoutd_fast_status_lines(void);

/// The overridden comparison, under its libevent name (declared here for the tests).
int evutil_ascii_strcasecmp(const char *s1, const char *s2);

/// `evbuffer_add_printf` with evhttp's header-line, status-line and chunk-size formats: a
/// variadic function does not import into Swift, and the tests call it as evhttp does.
int layoutd_test_add_header_line(struct evbuffer *buf, const char *key, const char *value);
int layoutd_test_add_status_line(struct evbuffer *buf, int major, int minor, int code, const char *reason);
int layoutd_test_add_chunk_size(struct evbuffer *buf, unsigned size);

#endif
