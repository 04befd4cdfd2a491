// Two libevent 2.1 functions, overridden for the process.
//
// evhttp writes every response header with `evbuffer_add_printf(out, "%s: %s\r\n", key, value)`
// and the status line with `"HTTP/%d.%d %d %s\r\n"`: through glibc's vsnprintf that is about
// 1,300 instructions a line and one of the largest code paths of a request (measured with
// callgrind: 8,000 instructions of a 79,000-instruction PATCH). It compares header names with
// `evutil_ascii_strcasecmp`, which calls a function per character (3,000 instructions a
// request). libevent calls both through its PLT, so definitions in the executable take their
// place for libevent's own calls (ELF symbol interposition, as mimalloc does for malloc).
//
// Both produce exactly what libevent's do: the two format strings above are written
// directly, any other format goes to libevent's own `evbuffer_add_vprintf`. Tests compare them
// byte for byte (Tests/DaemonTests/EvhttpFastPathsTests.swift). Should a libevent ever bind
// these calls internally, or change its formats, the overrides are simply not used: nothing
// else depends on them.
#include "CEvhttpFastPaths.h"

#include <event2/buffer.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

// Which fast paths ran since the last reset (for the test that checks evhttp's calls reach
// them). Set once and then only read: a counter bumped per line by every worker would move its
// cache line between the cores on every request.
static _Atomic int used;

static void note_used(int path) {
    if ((atomic_load_explicit(&used, memory_order_relaxed) & path) == 0) {
        atomic_fetch_or_explicit(&used, path, memory_order_relaxed);
    }
}

int layoutd_fast_paths_used(void) { return atomic_load_explicit(&used, memory_order_relaxed); }
void layoutd_fast_paths_reset(void) { atomic_store_explicit(&used, 0, memory_order_relaxed); }

/// Writes `v` in decimal (as printf's %d) at `p`; returns the end.
static char *put_int(char *p, int v) {
    char digits[12];
    int n = 0;
    unsigned int u = v < 0 ? 0u - (unsigned int)v : (unsigned int)v;
    do {
        digits[n++] = (char)('0' + u % 10);
        u /= 10;
    } while (u != 0);
    if (v < 0) *p++ = '-';
    while (n > 0) *p++ = digits[--n];
    return p;
}

/// Appends `parts` (count pieces) to `buf` in one `evbuffer_add`; returns the bytes added or -1.
static int add_parts(struct evbuffer *buf, const char *const *parts, const size_t *lengths, int count) {
    size_t total = 0;
    for (int i = 0; i < count; i++) total += lengths[i];
    if (total > (size_t)INT32_MAX) return -1;
    char stack[512];
    char *line = total <= sizeof stack ? stack : malloc(total);
    if (line == NULL) return -1;
    char *p = line;
    for (int i = 0; i < count; i++) {
        memcpy(p, parts[i], lengths[i]);
        p += lengths[i];
    }
    int result = evbuffer_add(buf, line, total) == 0 ? (int)total : -1;
    if (line != stack) free(line);
    return result;
}

static int add_header_line(struct evbuffer *buf, const char *key, const char *value) {
    const char *parts[4] = { key, ": ", value, "\r\n" };
    size_t lengths[4] = { strlen(key), 2, strlen(value), 2 };
    note_used(LAYOUTD_FAST_HEADER_LINE);
    return add_parts(buf, parts, lengths, 4);
}

static int add_status_line(struct evbuffer *buf, int major, int minor, int code, const char *reason) {
    char head[48];
    char *p = head;
    memcpy(p, "HTTP/", 5);
    p = put_int(p + 5, major);
    *p++ = '.';
    p = put_int(p, minor);
    *p++ = ' ';
    p = put_int(p, code);
    *p++ = ' ';
    const char *parts[3] = { head, reason, "\r\n" };
    size_t lengths[3] = { (size_t)(p - head), strlen(reason), 2 };
    note_used(LAYOUTD_FAST_STATUS_LINE);
    return add_parts(buf, parts, lengths, 3);
}

int evbuffer_add_printf(struct evbuffer *buf, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    int result;
    // A NULL string (glibc prints "(null)") is left to printf, as is any other format.
    if (strcmp(fmt, "%s: %s\r\n") == 0) {
        va_list copy;
        va_copy(copy, ap);
        const char *key = va_arg(copy, const char *);
        const char *value = va_arg(copy, const char *);
        va_end(copy);
        result = key != NULL && value != NULL ? add_header_line(buf, key, value) : evbuffer_add_vprintf(buf, fmt, ap);
    } else if (strcmp(fmt, "HTTP/%d.%d %d %s\r\n") == 0) {
        va_list copy;
        va_copy(copy, ap);
        int major = va_arg(copy, int);
        int minor = va_arg(copy, int);
        int code = va_arg(copy, int);
        const char *reason = va_arg(copy, const char *);
        va_end(copy);
        result = reason != NULL ? add_status_line(buf, major, minor, code, reason) : evbuffer_add_vprintf(buf, fmt, ap);
    } else {
        result = evbuffer_add_vprintf(buf, fmt, ap);
    }
    va_end(ap);
    return result;
}

int evutil_ascii_strcasecmp(const char *s1, const char *s2) {
    // libevent's: lower-case ASCII letters, compare as (signed) char, stop at the end of both.
    for (;;) {
        char c1 = *s1++;
        char c2 = *s2++;
        if (c1 != c2) {
            if (c1 >= 'A' && c1 <= 'Z') c1 = (char)(c1 + ('a' - 'A'));
            if (c2 >= 'A' && c2 <= 'Z') c2 = (char)(c2 + ('a' - 'A'));
            if (c1 < c2) return -1;
            if (c1 > c2) return 1;
        }
        if (c1 == 0) return 0;
    }
}

int layoutd_test_add_header_line(struct evbuffer *buf, const char *key, const char *value) {
    return evbuffer_add_printf(buf, "%s: %s\r\n", key, value);
}

int layoutd_test_add_status_line(struct evbuffer *buf, int major, int minor, int code, const char *reason) {
    return evbuffer_add_printf(buf, "HTTP/%d.%d %d %s\r\n", major, minor, code, reason);
}

int layoutd_test_add_chunk_size(struct evbuffer *buf, unsigned size) {
    return evbuffer_add_printf(buf, "%x\r\n", size);
}
