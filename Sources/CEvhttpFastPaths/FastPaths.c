// Four functions libevent 2.1 calls on every request, overridden for the process (a fifth,
// `epoll_ctl`, is in EpollInterest.c).
//
// evhttp writes every response header with `evbuffer_add_printf(out, "%s: %s\r\n", key, value)`
// and the status line with `"HTTP/%d.%d %d %s\r\n"`: through glibc's vsnprintf that is about
// 1,300 instructions a line and one of the largest code paths of a request (measured with
// callgrind: 8,000 instructions of a 79,000-instruction PATCH). It compares header names with
// `evutil_ascii_strcasecmp`, which calls a function per character (3,000 instructions a
// request). It reads a request's HTTP version with `sscanf(version, "HTTP/%d.%d%c", ...)`
// (glibc's `__isoc99_sscanf`: 1,500 instructions a request). Before every read of a socket it
// asks the kernel how many bytes are waiting (`ioctl(fd, FIONREAD)`, a system call a request)
// only to size the read, which it caps at 4,096 bytes anyway. libevent calls all four through
// its PLT, so definitions in the executable take their place for libevent's own calls (ELF
// symbol interposition, as mimalloc does for malloc).
//
// The first three produce exactly what the originals do: the format strings above are handled
// directly when their input has the plain shape, anything else goes to the original (libevent's
// `evbuffer_add_vprintf`, glibc's `vsscanf`). The fourth answers only libevent's FIONREAD, with
// the read size libevent would settle on anyway, and passes every other call to the kernel.
// Tests compare them with the originals (Tests/DaemonTests/EvhttpFastPathsTests.swift). Should a
// libevent ever bind these calls internally, or change its formats, the overrides are simply not
// used: nothing else depends on them.
#include "CEvhttpFastPaths.h"
#include "Internal.h"

#include <event2/buffer.h>
#include <link.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <unistd.h>

// Which fast paths ran since the last reset (for the test that checks evhttp's calls reach
// them). Set once and then only read: a counter bumped per line by every worker would move its
// cache line between the cores on every request.
static _Atomic int used;

static void note_used(int path) {
    if ((atomic_load_explicit(&used, memory_order_relaxed) & path) == 0) {
        atomic_fetch_or_explicit(&used, path, memory_order_relaxed);
    }
}

void layoutd_note_fast_path(int path) { note_used(path); }

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
    int result = 0, handled = 0;
    if (strcmp(fmt, "%s: %s\r\n") == 0) {
        va_list copy;
        va_copy(copy, ap);
        const char *key = va_arg(copy, const char *);
        const char *value = va_arg(copy, const char *);
        va_end(copy);
        if (key != NULL && value != NULL) {
            result = add_header_line(buf, key, value);
            handled = 1;
        }
    } else if (strcmp(fmt, "HTTP/%d.%d %d %s\r\n") == 0) {
        va_list copy;
        va_copy(copy, ap);
        int major = va_arg(copy, int);
        int minor = va_arg(copy, int);
        int code = va_arg(copy, int);
        const char *reason = va_arg(copy, const char *);
        va_end(copy);
        if (reason != NULL) {
            result = add_status_line(buf, major, minor, code, reason);
            handled = 1;
        }
    }
    // Any other format, or a NULL string (glibc prints "(null)"): libevent's own.
    if (!handled) result = evbuffer_add_vprintf(buf, fmt, ap);
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

/// Reads 1 to 9 decimal digits at `*p` into `*value` and moves `*p` past them; false (nothing
/// moved) for anything else, which is left to sscanf (signs, spaces, overflow).
static int take_digits(const char **p, int *value) {
    const char *s = *p;
    int v = 0, n = 0;
    while (s[n] >= '0' && s[n] <= '9') {
        if (n == 9) return 0;
        v = v * 10 + (s[n] - '0');
        n++;
    }
    if (n == 0) return 0;
    *value = v;
    *p = s + n;
    return 1;
}

/// `sscanf(text, "HTTP/%d.%d%c", major, minor, ch)` on the plain shape "HTTP/<digits>.<digits>"
/// and an optional character: the same count and values as glibc. -1 when `text` has another
/// shape (then nothing is written).
static int scan_http_version(const char *text, int *major, int *minor, char *ch) {
    if (strncmp(text, "HTTP/", 5) != 0) return -1;
    const char *p = text + 5;
    int a, b;
    if (!take_digits(&p, &a) || *p != '.') return -1;
    p++;
    if (!take_digits(&p, &b)) return -1;
    *major = a;
    *minor = b;
    note_used(LAYOUTD_FAST_HTTP_VERSION);
    if (*p == 0) return 2;  // %c at the end of the input: an input failure after two conversions
    *ch = *p;
    return 3;
}

// glibc's name for sscanf under C99 and later, the one libevent links against.
int __isoc99_sscanf(const char *text, const char *format, ...) {
    va_list ap;
    va_start(ap, format);
    int result = -1;
    if (text != NULL && strcmp(format, "HTTP/%d.%d%c") == 0) {
        va_list copy;
        va_copy(copy, ap);
        int *major = va_arg(copy, int *);
        int *minor = va_arg(copy, int *);
        char *ch = va_arg(copy, char *);
        va_end(copy);
        result = scan_http_version(text, major, minor, ch);
    }
    // Another format, or another shape of the version: glibc's own.
    if (result < 0) result = vsscanf(text, format, ap);
    va_end(ap);
    return result;
}

int layoutd_test_scan_http_version(const char *text, int *major, int *minor, char *ch) {
    return sscanf(text, "HTTP/%d.%d%c", major, minor, ch);
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

// MARK: FIONREAD

// evbuffer_read's cap on one read (libevent 2.1's EVBUFFER_MAX_READ): the size it uses when the
// kernel's answer is larger, zero or an error.
enum { LIBEVENT_MAX_READ = 4096 };

// The executable segments of the object that defines libevent's `evbuffer_read` (found once, at
// load): an `ioctl` returning there is libevent's.
static uintptr_t libevent_text_start, libevent_text_end;

static int find_libevent_text(struct dl_phdr_info *info, size_t size, void *data) {
    (void)size;
    uintptr_t target = (uintptr_t)data;
    for (int i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        if (ph->p_type != PT_LOAD || (ph->p_flags & PF_X) == 0) continue;
        uintptr_t start = info->dlpi_addr + ph->p_vaddr, end = start + ph->p_memsz;
        if (target >= start && target < end) {
            libevent_text_start = start;
            libevent_text_end = end;
            return 1;
        }
    }
    return 0;
}

__attribute__((constructor)) static void locate_libevent(void) {
    dl_iterate_phdr(find_libevent_text, (void *)(uintptr_t)&evbuffer_read);
}

int layoutd_called_from_libevent(uintptr_t return_address) {
    return return_address >= libevent_text_start && return_address < libevent_text_end;
}

/// libevent sizes each socket read with `ioctl(fd, FIONREAD, &n)` and then reads
/// min(n, 4096) bytes, or 4096 when the call fails or says 0. Answering 4096 for its calls saves
/// the system call: the read asks for up to 4,096 bytes and the kernel gives what is there (the
/// same bytes in the same reads: a bufferevent reads once per readiness of its socket either
/// way). Every other caller, and every other request, gets the kernel's answer.
int ioctl(int fd, unsigned long request, ...) {
    va_list ap;
    va_start(ap, request);
    void *argument = va_arg(ap, void *);
    va_end(ap);
    uintptr_t caller = (uintptr_t)__builtin_return_address(0);
    if (request == FIONREAD && argument != NULL && layoutd_called_from_libevent(caller)) {
        *(int *)argument = LIBEVENT_MAX_READ;
        note_used(LAYOUTD_FAST_READ_SIZE);
        return 0;
    }
    return (int)syscall(SYS_ioctl, fd, request, argument);
}

int layoutd_test_bytes_readable(int fd, int *count) {
    return ioctl(fd, FIONREAD, count);
}
